package plangate.planning_test

import data.plangate
import data.plangate.fixtures_test as fx
import data.plangate.gate_fixtures_test as gx
import data.plangate.planning

builtin_settings := {
	"profile": {"name": null, "scope": "default"},
	"enabled": {"value": false, "from": "builtin"},
	"whitelist": {"value": [], "from": "builtin"},
	"reviewerChannel": {"value": "plangate_submit_plan", "from": "builtin"},
	"readGuardMaxBytes": {"value": 0, "from": "builtin"},
}

test_built_in_values_without_any_settings if {
	planning.effective(fx.worker) == builtin_settings
	planning.effective(fx.worker) == builtin_settings with data.plangate.rules as gx.rules_off
	planning.effective(fx.worker) == builtin_settings with data.plangate.rules as {"planningGate": {}}
}

test_defaults_apply_when_no_profile_is_picked if {
	rules := {"planningGate": {"defaults": gx.defaults}}
	s := planning.effective(fx.worker) with data.plangate.rules as rules
	s.profile == {"name": null, "scope": "default"}
	s.enabled == {"value": false, "from": "defaults", "source": "rules/planning.yaml:2:3"}
	s.whitelist.value == ["github.get_*", "fs.read_file"]
	s.reviewerChannel == {"value": "review.send", "from": "defaults", "source": "rules/planning.yaml:2:3"}
	s.readGuardMaxBytes.value == 1000
}

test_nearest_crew_profile_then_defaults_field_by_field if {
	s := planning.effective(fx.worker) with data.plangate.rules as gx.rules
	s.profile == {"name": "strict", "scope": "crew", "id": "desk", "source": "rules/planning.yaml:16:5"}
	s.enabled == {"value": true, "from": "profile", "profile": "strict", "source": "rules/planning.yaml:9:5"}
	s.readGuardMaxBytes == {"value": 100, "from": "profile", "profile": "strict", "source": "rules/planning.yaml:9:5"}
	s.whitelist == {"value": ["github.get_*", "fs.read_file"], "from": "defaults", "source": "rules/planning.yaml:2:3"}
	s.reviewerChannel.from == "defaults"
}

test_a_profile_without_source_still_applies if {
	rules := json.remove(gx.rules, ["planningGate/profiles/strict/source"])
	s := planning.effective(fx.worker) with data.plangate.rules as rules
	s.enabled == {"value": true, "from": "profile", "profile": "strict"}
}

test_farther_crew_when_the_nearest_picks_nothing if {
	rules := object.union(gx.rules, {"planningGate": {"crews": {"news": {"profile": "open", "source": "p.yaml:1:1"}}}})
	only_news := json.remove(rules, ["planningGate/crews/desk"])
	s := planning.effective(fx.worker) with data.plangate.rules as only_news
	s.profile == {"name": "open", "scope": "crew", "id": "news", "source": "p.yaml:1:1"}
	s.whitelist == {"value": ["*"], "from": "profile", "profile": "open", "source": "rules/planning.yaml:11:5"}

	# with both, the nearest (desk) wins
	both := planning.effective(fx.worker) with data.plangate.rules as rules
	both.profile.id == "desk"
}

test_agent_pick_beats_crew_picks if {
	mgr := {"id": "0xMGR", "known": true, "crews": ["desk"]}
	s := planning.effective(mgr) with data.plangate.rules as gx.rules
	s.profile == {"name": "quiet", "scope": "agent", "id": "0xMGR", "source": "rules/planning.yaml:18:5"}
	s.enabled.value == false
	s.enabled.from == "profile"
	s.whitelist == {"value": [], "from": "profile", "profile": "quiet", "source": "rules/planning.yaml:13:5"}
	s.readGuardMaxBytes.value == 0
}

test_unknown_profile_and_missing_sources if {
	rules := {"planningGate": {"defaults": {"enabled": true}, "agents": {"0xWORKER": {"profile": "ghost"}}}}
	s := planning.effective(fx.worker) with data.plangate.rules as rules
	s.profile == {"name": "ghost", "scope": "agent", "id": "0xWORKER"}
	s.enabled == {"value": true, "from": "defaults"}
	s.readGuardMaxBytes == {"value": 0, "from": "builtin"}
}

test_null_fields_fall_through if {
	rules := {"planningGate": {
		"defaults": {"enabled": null, "readGuardMaxBytes": 5},
		"profiles": {"p": {"readGuardMaxBytes": null}},
		"agents": {"0xWORKER": {"profile": "p"}},
	}}
	s := planning.effective(fx.worker) with data.plangate.rules as rules
	s.enabled == {"value": false, "from": "builtin"}
	s.readGuardMaxBytes == {"value": 5, "from": "defaults"}
}

test_seat_without_crews if {
	s := planning.effective({"id": "0xNOBODY"}) with data.plangate.rules as gx.rules
	s.profile.scope == "default"
	s.enabled.from == "defaults"
}

test_matches_exact_names_and_patterns if {
	planning.matches("fs.read_file", ["fs.read_file"])
	planning.matches("github.get_issue", ["x", "github.get_*"])
	planning.matches("a.b", ["a.?"])
	not planning.matches("fs.read_file_x", ["fs.read_file"])
	not planning.matches("github.merge", ["github.get_*"])
	not planning.matches("a.b", [])
	not planning.matches("a.b", ["[a].b", "{a,x}.b"])
}

# The index the host computes for the fixtures' whitelists (whitelistIndex
# in src/core/patterns.ts): the defaults' and those of the profiles that set one.
whitelists := {
	"defaults": {
		"exact": {"fs.read_file": true},
		"byFirst": {"g": [{"pattern": "github.get_*", "shape": "prefix", "prefix": "github.get_", "suffix": "", "literals": 11}]},
	},
	"profiles": {
		"open": {"exact": {}, "byFirst": {"": [{"pattern": "*", "shape": "prefix", "prefix": "", "suffix": "", "literals": 0}]}},
		"quiet": {"exact": {}, "byFirst": {}},
	},
}

indexed_rules := object.union(gx.rules, {"index": {"whitelists": whitelists}})

test_whitelisted_by_the_index_as_by_the_list if {
	settings := [
		{"value": gx.defaults.whitelist, "from": "defaults"},
		{"value": ["*"], "from": "profile", "profile": "open"},
		{"value": [], "from": "profile", "profile": "quiet"},
		{"value": [], "from": "builtin"},
	]
	tools := ["fs.read_file", "fs.read_file_x", "github.get_issue", "github.merge", "g", "", "with space", "x"]
	every s in settings {
		every tool in tools {
			listed := {true | planning.matches(tool, s.value)}
			indexed := {true | planning.whitelisted(tool, s)} with data.plangate.rules as indexed_rules
			plain := {true | planning.whitelisted(tool, s)} with data.plangate.rules as gx.rules
			indexed == listed
			plain == listed
		}
	}
	planning.whitelisted("github.get_issue", settings[0]) with data.plangate.rules as indexed_rules
	planning.whitelisted("anything", settings[1]) with data.plangate.rules as indexed_rules
	not planning.whitelisted("with space", settings[1]) with data.plangate.rules as indexed_rules
}

test_the_index_is_read_when_present if {
	# an index that disagrees with its list (a document no host builds) shows which is read
	odd := object.union(gx.rules, {"index": {"whitelists": {"profiles": {}, "defaults": {"exact": {"only.this": true}, "byFirst": {}}}}})
	s := {"value": gx.defaults.whitelist, "from": "defaults"}
	planning.whitelisted("only.this", s) with data.plangate.rules as odd
	not planning.whitelisted("fs.read_file", s) with data.plangate.rules as odd
}

test_where_names_the_origin if {
	planning.where({"value": 1, "from": "profile", "profile": "strict", "source": "a.yaml:1:2"}) == "profile strict (a.yaml:1:2)"
	planning.where({"value": 1, "from": "profile", "profile": "strict"}) == "profile strict"
	planning.where({"value": 1, "from": "defaults", "source": "a.yaml:3:4"}) == "the planning-gate defaults (a.yaml:3:4)"
	planning.where({"value": 1, "from": "builtin"}) == "the built-in default"
}

# --- hold_allowed

allowed(agent, kind, hold, rules) := r if {
	inp := object.union({"agent": agent, "kind": kind}, hold)
	r := plangate.hold_allowed with input as inp with data.plangate.rules as rules
}

test_on_demand_hold_is_allowed_whatever_the_setting if {
	r := allowed(fx.manager, "on_demand", {}, gx.rules)
	r.allowed == true
	r.kind == "on_demand"
	r.enabled.value == false
	allowed(fx.worker, "on_demand", {}, {}).allowed == true
}

test_reviewer_hold_needs_the_gate_enabled if {
	on := allowed(fx.worker, "reviewer", {}, gx.rules)
	on == {"allowed": true, "kind": "reviewer", "enabled": {"value": true, "from": "profile", "profile": "strict", "source": "rules/planning.yaml:9:5"}}

	off := allowed(fx.manager, "reviewer", {}, gx.rules)
	off.allowed == false
	off.code == "planning_gate_off"
	contains(off.message, "the reviewer cannot hold 0xMGR: the planning gate is off")
	contains(off.message, "profile quiet (rules/planning.yaml:13:5)")
	contains(off.message, "on demand")

	builtin := allowed(fx.worker, "reviewer", {}, {})
	builtin.code == "planning_gate_off"
	contains(builtin.message, "the built-in default")
}

test_a_second_hold_is_refused_until_unblock if {
	existing := {"hold": gx.hold}
	every kind in ["on_demand", "reviewer"] {
		r := allowed(fx.worker, kind, existing, gx.rules)
		r.allowed == false
		r.code == "already_held"
		contains(r.message, "0xWORKER is already held (hold 7, placed by ops-alice)")
		contains(r.message, "unblock")
	}

	# the gate being off is the first thing a reviewer hears
	allowed(fx.manager, "reviewer", existing, gx.rules).code == "planning_gate_off"
}

test_unknown_hold_kind if {
	r := allowed(fx.worker, "whim", {}, gx.rules)
	r.allowed == false
	r.code == "invalid_hold_kind"
	contains(r.message, "\"whim\"")
}

test_planning_settings_entrypoint if {
	s := plangate.planning_settings with input as {"agent": fx.worker} with data.plangate.rules as gx.rules
	s == planning.effective(fx.worker) with data.plangate.rules as gx.rules
	not plangate.planning_settings with input as {}
}

test_the_built_in_channel_is_a_channel_name if {
	planning.channel_name(planning.builtin.reviewerChannel)
	not planning.channel_name("plangate_submit_plans")
}
