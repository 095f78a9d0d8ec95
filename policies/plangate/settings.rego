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

default plan_rules := {}

plan_rules := data.plangate.rules.planRequired

# scopes lists the rules that apply to a seat, narrowest first.
scopes(seat) := array.concat(
	array.concat(agent_scope(seat.id), crew_scopes(object.get(seat, "crews", []))),
	workspace_scope,
)

agent_scope(id) := [{"scope": "agent", "id": id, "rule": rule}] if {
	rule := plan_rules.agents[id]
} else := []

crew_scopes(crews) := [{"scope": "crew", "id": crew, "rule": rule} |
	some crew in crews
	rule := plan_rules.crews[crew]
]

workspace_scope := [{"scope": "workspace", "rule": plan_rules.workspace}] if {
	plan_rules.workspace
} else := []

# pick returns the narrowest scope setting `field`, described with its source.
pick(found, field, fallback) := setting if {
	setters := [s | some s in found; s.rule[field] != null]
	count(setters) > 0
	first := setters[0]
	setting := object.union(
		object.remove(first, ["rule"]),
		object.union({"value": first.rule[field]}, source_of(first.rule, field)),
	)
} else := {"value": fallback, "scope": "default"}

# source_of is {"source": …} when the rule records where it was defined: the
# field's own source when the rule has one (`sources`, e.g. a workspace rule
# pinned by environment variables, one per field), else the rule's. A rule
# without a source still applies: its settings must never be silently dropped.
source_of(rule, field) := {"source": rule.sources[field]} if {
	is_string(rule.sources[field])
} else := {"source": rule.source} if {
	is_string(rule.source)
} else := {}

# effective returns {mode, windowMin, acceptUpstream, enforce} for a seat {id, crews}.
effective(seat) := {
	"mode": pick(found, "mode", "off"),
	"windowMin": pick(found, "windowMin", default_window_min),
	"acceptUpstream": pick(found, "acceptUpstream", false),
	"enforce": pick(found, "enforce", true),
} if {
	found := scopes(seat)
}

# in_force: the settings in force for the acting agent, computed once per decision.
in_force := effective(input.agent)
