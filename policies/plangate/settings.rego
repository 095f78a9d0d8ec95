# METADATA
# title: Effective plan-required settings
# description: |
#   Narrowest scope first: the agent's rule, then each crew up the chain
#   (nearest first), then the workspace rule. Each setting is taken from the
#   narrowest rule that sets it; a setting no rule sets takes its default.
#   `enforce: false` (shadow mode) is a setting like the others: inherited per
#   field, true when no rule sets it.
package plangate.settings

default_window_min := 30

fields := ["mode", "windowMin", "acceptUpstream", "enforce"]

# Each rule's settings, described with their scope and source, are read from
# the index the host computes once when it normalizes the rules
# (rules.index.settings: {agents: {id: {field: setting}}, crews: {…},
# workspace: {…}}, see src/core/settings-index.ts), by direct reference: a
# lookup reads only the rule it names. A data document without the index has
# its rules described here, by the same definitions, on each evaluation.
indexed if data.plangate.rules.index.settings.workspace

default rules := {}

rules := data.plangate.rules.planRequired

# describe lists the settings one rule sets, each with where it is from.
describe(scope, id, rule) := {field: setting(scope, id, rule, field) |
	some field in fields
	rule[field] != null
}

setting(scope, id, rule, field) := object.union(named(scope, id, rule[field]), {"source": s}) if {
	s := source_of(rule, field)
} else := named(scope, id, rule[field])

named("workspace", _, value) := {"scope": "workspace", "value": value}

named(scope, id, value) := {"scope": scope, "id": id, "value": value} if scope != "workspace"

# source_of is where the rule records it was defined: the field's own source
# when the rule has one (`sources`, e.g. a workspace rule pinned by
# environment variables, one per field), else the rule's. A rule without a
# source still applies: its settings must never be silently dropped.
source_of(rule, field) := rule.sources[field] if {
	is_string(rule.sources[field])
} else := rule.source if {
	is_string(rule.source)
}

# layers are the described rules that apply to a seat {id, crews}, narrowest
# first; only the rules that exist are listed, so the work does not grow
# with the number of rules.
layers(seat) := array.concat(agent_layer(seat), array.concat(
	[l | some crew in object.get(seat, "crews", []); l := data.plangate.rules.index.settings.crews[crew]],
	[data.plangate.rules.index.settings.workspace],
)) if {
	indexed
} else := array.concat(described_agent(seat), array.concat(
	[describe("crew", crew, rules.crews[crew]) | some crew in object.get(seat, "crews", []); rules.crews[crew]],
	[describe("workspace", null, object.get(rules, "workspace", {}))],
))

agent_layer(seat) := [l] if {
	l := data.plangate.rules.index.settings.agents[seat.id]
} else := []

described_agent(seat) := [describe("agent", seat.id, rules.agents[seat.id])] if {
	rules.agents[seat.id]
} else := []

# effective returns {mode, windowMin, acceptUpstream, enforce} for a seat
# {id, crews}: each setting from the narrowest layer that sets it, else its
# default.
effective(seat) := {
	"mode": pick(seat_layers, "mode", "off"),
	"windowMin": pick(seat_layers, "windowMin", default_window_min),
	"acceptUpstream": pick(seat_layers, "acceptUpstream", false),
	"enforce": pick(seat_layers, "enforce", true),
} if {
	seat_layers := layers(seat)
}

pick(seat_layers, field, fallback) := s if {
	s := [x | some l in seat_layers; x := l[field]][0]
} else := {"value": fallback, "scope": "default"}

# in_force: the settings in force for the acting agent, computed once per decision.
in_force := effective(input.agent)

# values: the settings in force as bare values, as the hot answer gives them
# (the host has their scopes and sources from `effective`, once per seat).
values := {
	"mode": in_force.mode.value,
	"windowMin": in_force.windowMin.value,
	"acceptUpstream": in_force.acceptUpstream.value,
	"enforce": in_force.enforce.value,
}
