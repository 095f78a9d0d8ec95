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

# The rules are read by direct reference (data.plangate.rules.planRequired.…),
# never copied whole into a value: a lookup reads only the rule it names.

# pick returns the narrowest scope setting `field`, described with its
# source: the agent's rule, else the nearest crew's that sets it, else the
# workspace rule, else the default. Each scope is looked up directly, so the
# work does not grow with the number of rules.
pick(seat, field, fallback) := scoped("agent", seat.id, rule, field) if {
	rule := data.plangate.rules.planRequired.agents[seat.id]
	rule[field] != null
} else := scoped("crew", crew, data.plangate.rules.planRequired.crews[crew], field) if {
	crew := setting_crews(seat, field)[0]
} else := workspace_setting(data.plangate.rules.planRequired.workspace, field) if {
	data.plangate.rules.planRequired.workspace[field] != null
} else := {"value": fallback, "scope": "default"}

# setting_crews lists the seat's crews, nearest first, whose rule sets `field`.
setting_crews(seat, field) := [crew |
	some crew in object.get(seat, "crews", [])
	data.plangate.rules.planRequired.crews[crew][field] != null
]

scoped(scope, id, rule, field) := {"scope": scope, "id": id, "value": rule[field], "source": s} if {
	s := source_of(rule, field)
} else := {"scope": scope, "id": id, "value": rule[field]}

workspace_setting(rule, field) := {"scope": "workspace", "value": rule[field], "source": s} if {
	s := source_of(rule, field)
} else := {"scope": "workspace", "value": rule[field]}

# source_of is where the rule records it was defined: the field's own source
# when the rule has one (`sources`, e.g. a workspace rule pinned by
# environment variables, one per field), else the rule's. A rule without a
# source still applies: its settings must never be silently dropped.
source_of(rule, field) := rule.sources[field] if {
	is_string(rule.sources[field])
} else := rule.source if {
	is_string(rule.source)
}

# effective returns {mode, windowMin, acceptUpstream, enforce} for a seat {id, crews}.
effective(seat) := {
	"mode": pick(seat, "mode", "off"),
	"windowMin": pick(seat, "windowMin", default_window_min),
	"acceptUpstream": pick(seat, "acceptUpstream", false),
	"enforce": pick(seat, "enforce", true),
}

# in_force: the settings in force for the acting agent, computed once per decision.
in_force := effective(input.agent)
