# METADATA
# title: Effective planning-gate settings, and who may place a hold
# description: |
#   The planning-gate settings (enabled, whitelist, reviewerChannel,
#   readGuardMaxBytes) come from one profile per seat: the agent's own pick,
#   else the nearest crew's pick up the chain, else none. A setting the
#   profile leaves out comes from the defaults, then from the built-in value.
#   hold_allowed answers whether a hold of a given kind may be placed now.
package plangate.planning

import data.plangate.classify

# The built-in values: the gate off, nothing whitelisted, the read guard off.
builtin := {
	"enabled": false,
	"whitelist": [],
	"reviewerChannel": "plangate_submit_plan",
	"readGuardMaxBytes": 0,
}

default gate_rules := {}

gate_rules := data.plangate.rules.planningGate

defaults := object.get(gate_rules, "defaults", {})

profiles := object.get(gate_rules, "profiles", {})

# choice is the profile a seat uses and who picked it, narrowest first.
choice(seat) := chosen("agent", seat.id, pick) if {
	pick := gate_rules.agents[seat.id]
} else := chosen("crew", crew, gate_rules.crews[crew]) if {
	crew := [c | some c in object.get(seat, "crews", []); gate_rules.crews[c]][0]
} else := {"name": null, "scope": "default"}

chosen(scope, id, pick) := {"name": pick.profile, "scope": scope, "id": id, "source": pick.source} if {
	is_string(pick.source)
} else := {"name": pick.profile, "scope": scope, "id": id}

# setting is one field with where it came from: the profile, the defaults or built in.
setting(name, field) := {"value": p[field], "from": "profile", "profile": name, "source": p.source} if {
	p := profiles[name]
	p[field] != null
	is_string(p.source)
} else := {"value": p[field], "from": "profile", "profile": name} if {
	p := profiles[name]
	p[field] != null
} else := {"value": defaults[field], "from": "defaults", "source": defaults.source} if {
	defaults[field] != null
	is_string(defaults.source)
} else := {"value": defaults[field], "from": "defaults"} if {
	defaults[field] != null
} else := {"value": builtin[field], "from": "builtin"}

# effective returns the planning-gate settings in force for a seat {id, crews}.
effective(seat) := {
	"profile": picked,
	"enabled": setting(picked.name, "enabled"),
	"whitelist": setting(picked.name, "whitelist"),
	"reviewerChannel": setting(picked.name, "reviewerChannel"),
	"readGuardMaxBytes": setting(picked.name, "readGuardMaxBytes"),
} if {
	picked := choice(seat)
}

# For the acting agent, once per decision: the profile it uses, and one
# setting at a time (a decision needs the reviewer channel; the whitelist
# and the read ceiling only when a hold or the read guard applies).
picked := choice(input.agent)

in_force(field) := setting(picked.name, field)

# channel_name(tool): the tool is the reviewer channel of some seat (built
# in, in the defaults or in a profile): a call to any other tool is no
# channel call, whoever makes it. Each holds on its own, so no set of names
# is built for a decision.
# The built-in channel is written out: builtin, an object, is built only
# where a setting falls back to it.
channel_name("plangate_submit_plan")

channel_name(tool) if tool == data.plangate.rules.planningGate.defaults.reviewerChannel

channel_name(tool) if {
	some profile in data.plangate.rules.planningGate.profiles
	tool == profile.reviewerChannel
}

# matches holds when a tool name is one of the entries: exact names and
# `*`/`?` patterns, read exactly as tool patterns are (see plangate.classify).
matches(tool, entries) if {
	some entry in entries
	classify.well_formed(entry)
	glob.match(entry, classify.no_delimiter, tool)
}

# whitelisted(tool, s) holds when the tool is on the whitelist setting s (as
# in_force gives it). The host indexes each whitelist when it normalizes the
# rules (index.whitelists, see src/core/patterns.ts): a plain name is looked
# up, and only the patterns whose prefix can start the tool name are tried,
# by their shape (only one of no simpler shape whose prefix and suffix fit
# is glob-matched). A data document without the index has its list matched
# entry by entry (matches), each entry compiled as a glob.
whitelisted(tool, s) if {
	whitelist_index(s).exact[tool]
} else if {
	index := whitelist_index(s)
	some first in {substring(tool, 0, 1), ""}
	some e in object.get(index.byFirst, first, [])
	classify.pattern_matches(e, tool)
} else if {
	not whitelist_index(s)
	matches(tool, s.value)
}

whitelist_index(s) := data.plangate.rules.index.whitelists.profiles[s.profile] if s.from == "profile"

whitelist_index(s) := data.plangate.rules.index.whitelists.defaults if s.from == "defaults"

# where describes where a setting came from, for messages.
where(s) := concat("", ["profile ", s.profile, at(s)]) if s.from == "profile"

where(s) := concat("", ["the planning-gate defaults", at(s)]) if s.from == "defaults"

where(s) := "the built-in default" if s.from == "builtin"

at(s) := concat("", [" (", s.source, ")"]) if is_string(s.source)

else := ""

# --- hold_allowed: input {agent, kind: "reviewer" | "on_demand", hold?}

held_already := input.hold if is_object(input.hold)

hold_settings := effective(input.agent)

default kind_known := false

kind_known if input.kind in {"reviewer", "on_demand"}

hold_refusal := {
	"code": "invalid_hold_kind",
	"message": concat("", [
		"a hold is placed by the reviewer (kind reviewer) or by an operator on demand (kind on_demand), not ",
		json.marshal(input.kind),
	]),
} if {
	not kind_known
} else := {
	"code": "planning_gate_off",
	"message": concat("", [
		"the reviewer cannot hold ", input.agent.id, ": the planning gate is off for it (",
		where(hold_settings.enabled), "). Turn it on with enabled: true in that profile or in the ",
		"defaults, or have an operator place a hold on demand, which works whatever the setting.",
	]),
} if {
	input.kind == "reviewer"
	hold_settings.enabled.value != true
} else := {
	"code": "already_held",
	"message": concat("", [
		input.agent.id, " is already held (hold ", held_already.id, ", placed by ", held_already.placedBy,
		"). Only one hold at a time: clear it first with unblock, then place the new one.",
	]),
} if {
	held_already
}

hold_allowed := object.union({"allowed": false, "kind": input.kind, "enabled": hold_settings.enabled}, hold_refusal) if {
	hold_refusal
} else := {"allowed": true, "kind": input.kind, "enabled": hold_settings.enabled}
