package plangate.plan_required_test

import data.plangate
import data.plangate.fixtures_test as fx

minute := fx.minute

read := "github.get_pull_request"

say := "thread.post"

# result is the decision of `inp` under `rules` as plan-required gives it
# (the fixtures set no planning hold or read guard): without the checks'
# verdicts and the name of the deciding check.
result(inp, rules) := object.remove(d, ["checks", "check"]) if {
	d := plangate.decision with input as inp with data.plangate.rules as rules
}

# decide returns the result for input `inp` under rules `rules`.
decide(inp, rules) := result(inp, rules)

# --- gating: mode × class

# [mode, tool, class, gated]
matrix := [
	["off", read, "read", false],
	["off", say, "say", false],
	["off", fx.merge, "effect", false],
	["off", "unclassified.tool", "effect", false],
	["off", fx.spend, "spend", false],
	["spends_only", read, "read", false],
	["spends_only", say, "say", false],
	["spends_only", fx.merge, "effect", false],
	["spends_only", "unclassified.tool", "effect", false],
	["spends_only", fx.spend, "spend", true],
	["side_effects", read, "read", false],
	["side_effects", say, "say", false],
	["side_effects", fx.merge, "effect", true],
	["side_effects", "unclassified.tool", "effect", true],
	["side_effects", fx.spend, "spend", true],
]

test_gating_per_mode_and_class_without_any_plan if {
	every row in matrix {
		r := decide(fx.call(row[1], []), fx.workspace_rules(row[0]))
		r.tool == row[1]
		r.class == row[2]
		r.gated == row[3]
		r.allowed == row[3] == false
	}
}

test_reads_and_say_are_never_gated_even_with_only_bad_messages if {
	msgs := [fx.plan("stale", 120 * minute), fx.plan_with("note", minute, {"kind": "note"})]
	every mode in ["off", "spends_only", "side_effects"] {
		every tool in [read, say] {
			r := decide(fx.call(tool, msgs), fx.workspace_rules(mode))
			r.gated == false
			r.allowed == true
			not r.code
			not r.message
		}
	}
}

test_mode_off_gates_nothing_with_no_rules_at_all if {
	r := object.remove(plangate.decision, ["checks", "check"]) with input as fx.call(fx.spend, [])
	r.gated == false
	r.allowed == true
	r.settings.mode == {"value": "off", "scope": "default"}
}

test_unknown_mode_gates_nothing if {
	r := decide(fx.call(fx.spend, []), fx.workspace_rules("everything"))
	r.gated == false
	r.allowed == true
}

test_agent_mode_off_carves_the_seat_out if {
	rules := fx.rules_with({"mode": "side_effects", "source": "ws.yaml:1:1"}, {}, {"0xWORKER": {"mode": "off", "source": "agents.yaml:1:1"}})
	r := decide(fx.call(fx.spend, []), rules)
	r.gated == false
	r.allowed == true
}

# --- allowed with a plan

test_gated_call_with_a_counting_plan_is_allowed if {
	m := fx.plan("m1", 5 * minute)
	r := decide(fx.call(fx.merge, [m]), fx.side_effects)
	r.gated == true
	r.allowed == true
	r.plan == object.union(m, {"via": "fresh"})
	not r.code
	not r.reason
	not r.message
}

test_gated_call_allowed_by_a_same_run_plan if {
	m := fx.plan_with("m1", 600 * minute, {"runId": "run-7"})
	r := decide(fx.run_call(fx.spend, "run-7", [m]), fx.workspace_rules("spends_only"))
	r.allowed == true
	r.plan.via == "same_run"
	r.plan.id == "m1"
}

test_ungated_call_without_plan_has_no_outcome_fields if {
	r := decide(fx.call(read, []), fx.side_effects)
	object.keys(r) == {"allowed", "tool", "class", "gated", "agent", "agentKnown", "settings", "candidates"}
}

# --- refusals and their codes

test_refusal_none_without_messages if {
	r := decide(fx.call(fx.merge, []), fx.side_effects)
	r.allowed == false
	r.gated == true
	r.code == "plan_required:github.merge_pull_request:none"
	r.reason == "none"
	not r.plan
	r.candidates == []
}

test_refusal_stale_when_a_plan_fails_on_freshness_alone if {
	r := decide(fx.call(fx.merge, [fx.plan("old", 45 * minute)]), fx.side_effects)
	r.allowed == false
	r.code == "plan_required:github.merge_pull_request:stale"
	r.reason == "stale"
}

test_window_boundary_decides_stale_or_allowed if {
	decide(fx.call(fx.merge, [fx.plan("m1", 30 * minute)]), fx.side_effects).reason == "stale"
	decide(fx.call(fx.merge, [fx.plan("m1", (30 * minute) - 1)]), fx.side_effects).allowed == true
}

test_refusal_stale_for_a_plan_from_another_run if {
	r := decide(fx.run_call(fx.merge, "run-7", [fx.plan_with("old", 45 * minute, {"runId": "run-6"})]), fx.side_effects)
	r.code == "plan_required:github.merge_pull_request:stale"
}

test_refusal_none_when_the_old_message_fails_more_than_freshness if {
	every m in [
		fx.plan_with("note", 45 * minute, {"kind": "note"}),
		fx.plan_with("sibling", 45 * minute, {"thread": "crew:sports"}),
		fx.plan_with("other", 45 * minute, {"author": "0xOTHER"}),
		fx.plan_with("human", 45 * minute, {"authorKind": "human"}),
	] {
		r := decide(fx.call(fx.merge, [m]), fx.side_effects)
		r.allowed == false
		r.reason == "none"
		r.code == "plan_required:github.merge_pull_request:none"
	}
}

test_refusal_none_for_a_future_plan if {
	r := decide(fx.call(fx.merge, [fx.plan("soon", 0 - minute)]), fx.side_effects)
	r.reason == "none"
}

test_refusal_none_for_fresh_messages_that_are_not_plans if {
	msgs := [
		fx.plan_with("note", minute, {"kind": "note"}),
		fx.plan_with("human", minute, {"authorKind": "human"}),
		fx.plan_with("other", minute, {"author": "0xOTHER"}),
		fx.plan_with("child", minute, {"thread": "crew:desk-night"}),
		fx.plan_with("theirs", minute, {"thread": "agent:0xOTHER"}),
	]
	r := decide(fx.call(fx.merge, msgs), fx.side_effects)
	r.allowed == false
	r.reason == "none"
	count(r.candidates) == 5
}

test_stale_wins_over_none_when_any_plan_is_only_stale if {
	msgs := [fx.plan_with("note", minute, {"kind": "note"}), fx.plan("old", 50 * minute)]
	decide(fx.call(fx.merge, msgs), fx.side_effects).reason == "stale"
}

test_refused_upstream_plan_without_accept_upstream if {
	r := decide(fx.delegated(fx.merge, [fx.plan_with("m", minute, {"author": "0xMGR", "thread": "crew:mgmt"})]), fx.side_effects)
	r.allowed == false
	r.reason == "none"
	r.candidates[0].reasons == ["upstream_not_accepted"]
}

test_delegated_call_allowed_by_upstream_plan if {
	m := fx.plan_with("m", minute, {"author": "0xMGR", "thread": "crew:mgmt"})
	r := decide(fx.delegated(fx.merge, [m]), fx.upstream_rules)
	r.allowed == true
	r.plan == object.union(m, {"via": "fresh"})
}

# --- the refusal message

none_message := concat("", [
	"plan_required:github.merge_pull_request:none - github.merge_pull_request is a side effect ",
	"and 0xWORKER runs under plan-required mode side_effects (the workspace rule). ",
	"0xWORKER has posted no plan in a thread it speaks in within the last 30 minutes. ",
	"Post a message of kind `plan` saying what you are about to do (in your own thread, ",
	"a crew thread above you, or the org thread), then retry. ",
	"A plan approves nothing: every other policy and human gate still applies.",
])

test_refusal_message_in_full if {
	decide(fx.call(fx.merge, []), fx.side_effects).message == none_message
}

test_refusal_message_has_every_part if {
	rules := fx.rules_with({"mode": "off", "source": "ws.yaml:1:1"}, {"news": {"mode": "spends_only", "source": "news.yaml:1:1"}}, {})
	msg := decide(fx.call(fx.spend, []), rules).message
	startswith(msg, "plan_required:billing.propose_spend:none - ")
	contains(msg, "billing.propose_spend is a spend")
	contains(msg, "plan-required mode spends_only")
	contains(msg, "(the crew rule for news)")
	contains(msg, "0xWORKER has posted no plan")
	contains(msg, "Post a message of kind `plan`")
	contains(msg, "then retry")
	contains(msg, "A plan approves nothing")
}

test_refusal_message_names_the_scope_of_the_mode if {
	agent_rules := fx.rules_with({"mode": "off", "source": "ws.yaml:1:1"}, {}, {"0xWORKER": {"mode": "side_effects", "source": "agents.yaml:1:1"}})
	contains(decide(fx.call(fx.merge, []), agent_rules).message, "(the agent rule for 0xWORKER)")
	crew_rules := fx.rules_with({"mode": "off", "source": "ws.yaml:1:1"}, {"desk": {"mode": "side_effects", "source": "desk.yaml:1:1"}}, {})
	contains(decide(fx.call(fx.merge, []), crew_rules).message, "(the crew rule for desk)")
	contains(decide(fx.call(fx.merge, []), fx.side_effects).message, "(the workspace rule)")
}

test_refusal_message_uses_the_window_in_force if {
	rules := fx.rules_with({"mode": "side_effects", "windowMin": 90, "source": "ws.yaml:1:1"}, {}, {})
	contains(decide(fx.call(fx.merge, []), rules).message, "within the last 90 minutes.")
}

test_stale_message_says_how_old_the_newest_stale_plan_is if {
	# 45.5 and 90 minutes old: the newest is reported, in whole minutes.
	msgs := [fx.plan("older", 90 * minute), fx.plan("old", (45 * minute) + 30000)]
	msg := decide(fx.call(fx.merge, msgs), fx.side_effects).message
	startswith(msg, "plan_required:github.merge_pull_request:stale - ")
	contains(msg, "0xWORKER's newest plan is 45 minutes old, outside the 30-minute window. ")
	contains(msg, "then retry")
	contains(msg, "A plan approves nothing")
}

test_none_message_names_the_delegation_chain_when_upstream_is_accepted if {
	director := {"id": "0xDIR", "known": true, "crews": ["board"]}
	inp := object.union(fx.delegated(fx.merge, []), {
		"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": ["0xMGR", "0xDIR"]},
		"upstream": [fx.manager, director],
		"delegations": [fx.delegation("d1", "0xMGR", "0xWORKER"), fx.delegation("d2", "0xDIR", "0xMGR")],
	})
	msg := decide(inp, fx.upstream_rules).message
	contains(msg, "0xWORKER has posted no plan in a thread it speaks in within the last 10 minutes, and nobody up its delegation chain (0xDIR, 0xMGR) has either. ")
	contains(msg, "(the agent rule for 0xWORKER)")
	not contains(msg, "not on record")
}

test_message_says_where_the_recorded_chain_stops if {
	# 0xDIR is claimed but never delegated to 0xMGR: the chain stops at it, and the message says so.
	director := {"id": "0xDIR", "known": true, "crews": ["board"]}
	inp := object.union(fx.delegated(fx.merge, []), {
		"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": ["0xMGR", "0xDIR"]},
		"upstream": [fx.manager, director],
	})
	r := decide(inp, fx.upstream_rules)
	contains(r.message, "nobody up its delegation chain (0xMGR) has either. ")
	contains(r.message, "The claimed delegation by 0xDIR is not on record, so neither it nor anyone above it counts. ")
	r.delegation == {"claimed": ["0xMGR", "0xDIR"], "chain": ["0xMGR"], "unrecorded": "0xDIR"}
}

test_none_message_without_upstream_phrase if {
	# acceptUpstream off: the chain is not mentioned.
	not contains(decide(fx.delegated(fx.merge, []), fx.side_effects).message, "delegation chain")

	# acceptUpstream on but not delegated.
	not contains(decide(fx.call(fx.merge, []), fx.upstream_rules).message, "delegation chain")
}

test_stale_message_names_the_manager_when_its_plan_is_the_stale_one if {
	m := fx.plan_with("m", 15 * minute, {"author": "0xMGR", "thread": "crew:mgmt"})
	r := decide(fx.delegated(fx.merge, [m]), fx.upstream_rules)
	r.code == "plan_required:github.merge_pull_request:stale"
	contains(r.message, "0xWORKER has no fresh plan, and the newest plan by 0xMGR up its delegation chain is older than the 10-minute window. ")

	# the manager's plan time is not told
	not contains(r.message, "15 minutes")
	not contains(r.message, "0xWORKER's newest plan")
}

test_stale_message_names_the_agent_when_its_own_plan_is_the_newest_stale_one if {
	# with acceptUpstream, the manager's older stale plan is not the one named
	own := fx.plan("own", 15 * minute)
	mgr := fx.plan_with("m", 20 * minute, {"author": "0xMGR", "thread": "crew:mgmt"})
	r := decide(fx.delegated(fx.merge, [mgr, own]), fx.upstream_rules)
	contains(r.message, "0xWORKER's newest plan is 15 minutes old, outside the 10-minute window. ")
}

# --- the rest of the result

test_result_carries_settings_candidates_and_agent if {
	inp := fx.call(fx.merge, [fx.plan("m1", 45 * minute)])
	r := decide(inp, fx.side_effects)
	r.agent == "0xWORKER"
	r.agentKnown == true
	r.settings.mode == {"value": "side_effects", "scope": "workspace", "source": "rules/workspace.yaml:2:3"}
	r.candidates == [object.union(fx.plan("m1", 45 * minute), {"counts": false, "reasons": ["stale"], "ageMs": 45 * minute, "sameRun": false})]
	object.keys(r) == {"allowed", "tool", "class", "gated", "agent", "agentKnown", "settings", "candidates", "code", "reason", "message"}
}

test_agent_known_is_strictly_true if {
	unknown := object.union(fx.call(fx.merge, []), {"agent": {"id": "0xWORKER", "known": false, "crews": ["desk", "news"]}})
	decide(unknown, fx.side_effects).agentKnown == false
	missing := object.union(object.remove(fx.call(fx.merge, []), ["agent"]), {"agent": {"id": "0xWORKER", "crews": ["desk", "news"]}})
	decide(missing, fx.side_effects).agentKnown == false
	truthy := object.union(fx.call(fx.merge, []), {"agent": {"known": "true"}})
	decide(truthy, fx.side_effects).agentKnown == false
	decide(fx.call(fx.merge, []), fx.side_effects).agentKnown == true
}

test_unknown_agent_with_no_crews_falls_under_the_workspace_rule if {
	inp := object.union(fx.call(fx.merge, [fx.plan_with("m1", minute, {"author": "0xNEW", "thread": "agent:0xNEW"})]), {"agent": {"id": "0xNEW", "known": false, "crews": []}})
	r := decide(inp, fx.side_effects)
	r.agent == "0xNEW"
	r.agentKnown == false
	r.gated == true
	r.allowed == true
}

# --- shadow mode (enforce: false)

shadow_rules := fx.rules_with(
	{"mode": "side_effects", "enforce": false, "source": "ws.yaml:1:1"},
	{"news": {"mode": "side_effects", "enforce": true, "source": "news.yaml:1:1"}},
	{},
)

shadow_only_workspace := fx.rules_with({"mode": "side_effects", "enforce": false, "source": "ws.yaml:1:1"}, {}, {})

test_shadow_would_be_refusal_goes_through_with_the_would_be_outcome if {
	r := decide(fx.call(fx.merge, []), shadow_only_workspace)
	r.allowed == true
	r.gated == true
	r.shadow == true
	r.code == "plan_required:github.merge_pull_request:none"
	r.reason == "none"
	startswith(r.message, "plan_required:github.merge_pull_request:none - ")
	r.settings.enforce == {"value": false, "scope": "workspace", "source": "ws.yaml:1:1"}
	not r.plan

	stale := decide(fx.call(fx.merge, [fx.plan("old", 45 * minute)]), shadow_only_workspace)
	stale.shadow == true
	stale.reason == "stale"
}

test_shadow_has_no_effect_when_the_call_is_allowed_anyway if {
	m := fx.plan("m1", minute)
	r := decide(fx.call(fx.merge, [m]), shadow_only_workspace)
	r.allowed == true
	not r.shadow
	not r.code
	r.plan.id == "m1"

	ungated := decide(fx.call(read, []), shadow_only_workspace)
	object.keys(ungated) == {"allowed", "tool", "class", "gated", "agent", "agentKnown", "settings", "candidates"}
}

test_a_narrower_rule_that_enforces_refuses if {
	# news is the worker's grandparent crew: its enforce: true beats the workspace's false.
	r := decide(fx.call(fx.merge, []), shadow_rules)
	r.allowed == false
	not r.shadow
	r.settings.enforce.id == "news"
}

test_only_an_explicit_false_turns_enforcement_off if {
	every value in ["false", 0, null, "no"] {
		rules := fx.rules_with({"mode": "side_effects", "enforce": value, "source": "ws.yaml:1:1"}, {}, {})
		r := decide(fx.call(fx.merge, []), rules)
		r.allowed == false
		not r.shadow
	}
}
