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

# described holds every rule's settings, each described with its scope and
# source: {agents: {id: {field: setting}}, crews: {…}, workspace: {…}}. The
# host computes it once when it normalizes the rules (rules.index.settings,
# see src/core/settings-index.ts); a data document without it has its rules
# described here, by the same definitions, on each evaluation.
described := data.plangate.rules.index.settings if {
	data.plangate.rules.index.settings.workspace
} else := {
	"agents": {id: describe("agent", id, rule) | some id, rule in object.get(rules, "agents", {})},
	"crews": {id: describe("crew", id, rule) | some id, rule in object.get(rules, "crews", {})},
	"workspace": describe("workspace", null, object.get(rules, "workspace", {})),
}

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
	[l | some crew in object.get(seat, "crews", []); l := described.crews[crew]],
	[described.workspace],
))

agent_layer(seat) := [described.agents[seat.id]] if described.agents[seat.id]

else := []

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
