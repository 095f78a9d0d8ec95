package plangate.settings_test

import data.plangate.fixtures_test as fx
import data.plangate.settings

# A full hierarchy: every scope sets every field, with distinct values.
full := fx.rules_with(
	{"mode": "spends_only", "windowMin": 60, "acceptUpstream": false, "source": "ws.yaml:1:1"},
	{
		"desk": {"mode": "side_effects", "windowMin": 15, "acceptUpstream": true, "source": "desk.yaml:1:1"},
		"news": {"mode": "spends_only", "windowMin": 45, "acceptUpstream": false, "source": "news.yaml:1:1"},
		"sports": {"mode": "off", "windowMin": 5, "acceptUpstream": true, "source": "sports.yaml:1:1"},
	},
	{
		"0xWORKER": {"mode": "off", "windowMin": 20, "acceptUpstream": false, "source": "agents.yaml:3:1"},
		"0xOTHER": {"mode": "side_effects", "windowMin": 1, "acceptUpstream": true, "source": "agents.yaml:9:1"},
	},
)

# object.union merges recursively, so rules are taken apart with object.remove.
without(rules, scope, id) := {"tools": rules.tools, "planRequired": object.union(
	object.remove(rules.planRequired, [scope]),
	{scope: object.remove(rules.planRequired[scope], [id])},
)}

without_workspace(rules) := {"tools": rules.tools, "planRequired": object.remove(rules.planRequired, ["workspace"])}

test_agent_rule_beats_crews_and_workspace if {
	s := settings.effective(fx.worker) with data.plangate.rules as full
	s == {
		"mode": {"value": "off", "scope": "agent", "id": "0xWORKER", "source": "agents.yaml:3:1"},
		"windowMin": {"value": 20, "scope": "agent", "id": "0xWORKER", "source": "agents.yaml:3:1"},
		"acceptUpstream": {"value": false, "scope": "agent", "id": "0xWORKER", "source": "agents.yaml:3:1"},
		"enforce": {"value": true, "scope": "default"},
	}
}

test_nearest_crew_beats_farther_crew_and_workspace if {
	s := settings.effective(fx.worker) with data.plangate.rules as without(full, "agents", "0xWORKER")
	s == {
		"mode": {"value": "side_effects", "scope": "crew", "id": "desk", "source": "desk.yaml:1:1"},
		"windowMin": {"value": 15, "scope": "crew", "id": "desk", "source": "desk.yaml:1:1"},
		"acceptUpstream": {"value": true, "scope": "crew", "id": "desk", "source": "desk.yaml:1:1"},
		"enforce": {"value": true, "scope": "default"},
	}
}

test_crew_order_is_the_lineage_order_not_the_rule_order if {
	# news is desk's parent; a lineage listing news first would make news nearest.
	seat := {"id": "0xWORKER", "known": true, "crews": ["news", "desk"]}
	s := settings.effective(seat) with data.plangate.rules as without(full, "agents", "0xWORKER")
	s.mode == {"value": "spends_only", "scope": "crew", "id": "news", "source": "news.yaml:1:1"}
}

test_farther_crew_beats_workspace if {
	rules := without(without(full, "agents", "0xWORKER"), "crews", "desk")
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode == {"value": "spends_only", "scope": "crew", "id": "news", "source": "news.yaml:1:1"}
	s.windowMin == {"value": 45, "scope": "crew", "id": "news", "source": "news.yaml:1:1"}
	s.acceptUpstream == {"value": false, "scope": "crew", "id": "news", "source": "news.yaml:1:1"}
}

test_workspace_rule_when_no_agent_or_crew_rule if {
	rules := fx.rules_with(full.planRequired.workspace, {"sports": full.planRequired.crews.sports}, {"0xOTHER": full.planRequired.agents["0xOTHER"]})
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s == {
		"mode": {"value": "spends_only", "scope": "workspace", "source": "ws.yaml:1:1"},
		"windowMin": {"value": 60, "scope": "workspace", "source": "ws.yaml:1:1"},
		"acceptUpstream": {"value": false, "scope": "workspace", "source": "ws.yaml:1:1"},
		"enforce": {"value": true, "scope": "default"},
	}
}

test_rules_of_other_crews_and_agents_do_not_apply if {
	# sports (a sibling crew) is off and 0xOTHER side_effects; neither touches 0xWORKER.
	rules := fx.rules_with({"mode": "spends_only", "source": "ws.yaml:1:1"}, {"sports": full.planRequired.crews.sports, "desk-night": {"mode": "off", "source": "n.yaml:1:1"}}, {"0xOTHER": full.planRequired.agents["0xOTHER"]})
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode.scope == "workspace"
	s.mode.value == "spends_only"
}

test_each_field_is_inherited_from_the_narrowest_rule_setting_it if {
	rules := fx.rules_with(
		{"mode": "spends_only", "windowMin": 60, "acceptUpstream": true, "source": "ws.yaml:1:1"},
		{
			"desk": {"mode": "side_effects", "source": "desk.yaml:1:1"},
			"news": {"mode": "off", "windowMin": 45, "source": "news.yaml:1:1"},
		},
		{"0xWORKER": {"mode": "side_effects", "source": "agents.yaml:3:1"}},
	)
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s == {
		"mode": {"value": "side_effects", "scope": "agent", "id": "0xWORKER", "source": "agents.yaml:3:1"},
		"windowMin": {"value": 45, "scope": "crew", "id": "news", "source": "news.yaml:1:1"},
		"acceptUpstream": {"value": true, "scope": "workspace", "source": "ws.yaml:1:1"},
		"enforce": {"value": true, "scope": "default"},
	}
}

test_accept_upstream_false_is_a_setting_not_an_absence if {
	rules := fx.rules_with(
		{"mode": "side_effects", "acceptUpstream": true, "source": "ws.yaml:1:1"},
		{"desk": {"mode": "side_effects", "acceptUpstream": false, "source": "desk.yaml:1:1"}},
		{},
	)
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.acceptUpstream == {"value": false, "scope": "crew", "id": "desk", "source": "desk.yaml:1:1"}
}

test_null_field_inherits if {
	rules := fx.rules_with(
		{"mode": "side_effects", "windowMin": 60, "source": "ws.yaml:1:1"},
		{},
		{"0xWORKER": {"mode": "spends_only", "windowMin": null, "acceptUpstream": null, "source": "agents.yaml:3:1"}},
	)
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode.scope == "agent"
	s.windowMin == {"value": 60, "scope": "workspace", "source": "ws.yaml:1:1"}
	s.acceptUpstream == {"value": false, "scope": "default"}
}

test_mode_off_on_an_agent_carves_the_seat_out if {
	rules := fx.rules_with(
		{"mode": "side_effects", "source": "ws.yaml:1:1"},
		{"desk": {"mode": "side_effects", "windowMin": 10, "source": "desk.yaml:1:1"}},
		{"0xWORKER": {"mode": "off", "source": "agents.yaml:3:1"}},
	)
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode == {"value": "off", "scope": "agent", "id": "0xWORKER", "source": "agents.yaml:3:1"}

	# its crewmates stay gated
	mate := settings.effective({"id": "0xMATE", "known": true, "crews": ["desk", "news"]}) with data.plangate.rules as rules
	mate.mode.value == "side_effects"
}

test_missing_fields_take_defaults if {
	rules := fx.rules_with({"mode": "spends_only", "source": "ws.yaml:1:1"}, {}, {})
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.windowMin == {"value": 30, "scope": "default"}
	s.acceptUpstream == {"value": false, "scope": "default"}
}

defaults := {
	"mode": {"value": "off", "scope": "default"},
	"windowMin": {"value": 30, "scope": "default"},
	"acceptUpstream": {"value": false, "scope": "default"},
	"enforce": {"value": true, "scope": "default"},
}

test_defaults_with_no_rules if {
	settings.effective(fx.worker) == defaults
	settings.effective(fx.worker) == defaults with data.plangate.rules as {}
	settings.effective(fx.worker) == defaults with data.plangate.rules as {"planRequired": {"crews": {}, "agents": {}}}
	settings.effective(fx.worker) == defaults with data.plangate.rules as {"planRequired": {}}
}

test_unknown_agent_with_no_crews if {
	nobody := {"id": "0xNOBODY", "known": false, "crews": []}
	settings.effective(nobody) == defaults with data.plangate.rules as without_workspace(full)
	s := settings.effective(nobody) with data.plangate.rules as full
	s.mode == {"value": "spends_only", "scope": "workspace", "source": "ws.yaml:1:1"}
	s.windowMin.value == 60
}

test_seat_without_crews_field if {
	s := settings.effective({"id": "0xWORKER"}) with data.plangate.rules as without(full, "agents", "0xWORKER")
	s.mode == {"value": "spends_only", "scope": "workspace", "source": "ws.yaml:1:1"}
}

test_a_rule_without_source_still_applies if {
	rules := fx.rules_with({"mode": "side_effects"}, {}, {"0xWORKER": {"mode": "spends_only", "windowMin": 5}})
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode == {"value": "spends_only", "scope": "agent", "id": "0xWORKER"}
	s.windowMin == {"value": 5, "scope": "agent", "id": "0xWORKER"}
}

test_a_workspace_rule_without_source_still_applies if {
	s := settings.effective(fx.worker) with data.plangate.rules as fx.rules_with({"mode": "side_effects", "windowMin": 12}, {}, {})
	s.mode == {"value": "side_effects", "scope": "workspace"}
	s.windowMin == {"value": 12, "scope": "workspace"}
}

test_layers_are_the_seats_rules_nearest_first if {
	layers := settings.layers(fx.worker) with data.plangate.rules as full
	[l.mode.id | some l in layers; l.mode.scope != "workspace"] == ["0xWORKER", "desk", "news"]
	layers[3].mode.scope == "workspace"
	count(layers) == 4
}

# The host's index (rules.index.settings) is read as it is: the policy does
# not describe the rules again when it is there.
test_the_settings_index_is_read_when_present if {
	index := {
		"agents": {"0xWORKER": {"enforce": {"value": false, "scope": "agent", "id": "0xWORKER"}}},
		"crews": {"desk": {"mode": {"value": "spends_only", "scope": "crew", "id": "desk", "source": "indexed"}}},
		"workspace": {"windowMin": {"value": 7, "scope": "workspace"}},
	}
	rules := object.union(full, {"index": {"settings": index}})
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode == {"value": "spends_only", "scope": "crew", "id": "desk", "source": "indexed"}
	s.windowMin == {"value": 7, "scope": "workspace"}
	s.acceptUpstream == {"value": false, "scope": "default"}
	s.enforce == {"value": false, "scope": "agent", "id": "0xWORKER"}

	# a seat the index has no agent rule for
	t := settings.effective({"id": "0xNEW", "crews": ["desk"]}) with data.plangate.rules as rules
	t.mode.id == "desk"
	t.enforce == {"value": true, "scope": "default"}
}

# --- enforce (shadow mode) and per-field sources

test_enforce_is_inherited_per_field_and_true_by_default if {
	rules := fx.rules_with(
		{"mode": "side_effects", "enforce": false, "source": "ws.yaml:1:1"},
		{"desk": {"mode": "spends_only", "source": "desk.yaml:1:1"}},
		{},
	)
	s := settings.effective(fx.worker) with data.plangate.rules as rules
	s.mode == {"value": "spends_only", "scope": "crew", "id": "desk", "source": "desk.yaml:1:1"}
	s.enforce == {"value": false, "scope": "workspace", "source": "ws.yaml:1:1"}

	narrower := fx.rules_with(rules.planRequired.workspace, {"desk": {"mode": "spends_only", "enforce": true, "source": "desk.yaml:1:1"}}, {})
	t := settings.effective(fx.worker) with data.plangate.rules as narrower
	t.enforce == {"value": true, "scope": "crew", "id": "desk", "source": "desk.yaml:1:1"}
}

test_a_field_source_beats_the_rule_source if {
	ws := {
		"mode": "side_effects", "windowMin": 10, "source": "env:PLANGATE_WORKSPACE_MODE",
		"sources": {"windowMin": "env:PLANGATE_WORKSPACE_WINDOW_MIN", "mode": 7},
	}
	s := settings.effective(fx.worker) with data.plangate.rules as fx.rules_with(ws, {}, {})
	s.windowMin == {"value": 10, "scope": "workspace", "source": "env:PLANGATE_WORKSPACE_WINDOW_MIN"}

	# a source that is not a string is ignored: the rule's own source stands
	s.mode == {"value": "side_effects", "scope": "workspace", "source": "env:PLANGATE_WORKSPACE_MODE"}
}
