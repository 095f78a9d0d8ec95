package plangate.hold_test

import data.plangate.fixtures_test as fx
import data.plangate.gate_fixtures_test as gx
import data.plangate.hold

with_hold(fields) := object.union(gx.call(fx.merge, {}, {}), {"hold": object.union(gx.hold, fields)})

test_no_hold_no_refusal if {
	every tool in [fx.merge, gx.read_file, "anything.else"] {
		v := hold.verdict with input as gx.call(tool, {}, {}) with data.plangate.rules as gx.rules
		v == {"held": false, "refused": false, "channel": "review.send"}
	}
	not hold.refused with input as gx.call(fx.merge, {}, {"hold": null}) with data.plangate.rules as gx.rules
}

test_held_agent_is_refused_every_other_tool_reads_included if {
	every tool in [fx.merge, fx.spend, "github.list_issues", "fs.cat", "thread.post"] {
		v := hold.verdict with input as gx.held(tool, {}) with data.plangate.rules as gx.rules
		v == {"held": true, "refused": true, "channel": "review.send", "hold": {"id": "7", "kind": "on_demand"}}
		hold.code == concat("", ["planning_hold:", tool]) with input as gx.held(tool, {})
	}
}

test_whitelisted_tools_stay_open if {
	every tool in [gx.read_file, "github.get_pull_request", "github.get_issue"] {
		v := hold.verdict with input as gx.held(tool, {}) with data.plangate.rules as gx.rules
		v == {"held": true, "refused": false, "channel": "review.send", "exempt": "whitelist", "hold": {"id": "7", "kind": "on_demand"}}
	}
}

test_whitelisted_tools_stay_open_by_the_whitelist_index if {
	rules := object.union(gx.rules, {"index": {"whitelists": {
		"defaults": {"exact": {"fs.read_file": true}, "byFirst": {"g": [{"pattern": "github.get_*", "shape": "prefix", "prefix": "github.get_", "suffix": "", "literals": 11}]}},
		"profiles": {},
	}}})
	every tool in [gx.read_file, "github.get_pull_request"] {
		v := hold.verdict with input as gx.held(tool, {}) with data.plangate.rules as rules
		v.exempt == "whitelist"
		v.refused == false
	}
	hold.refused with input as gx.held("github.merge", {}) with data.plangate.rules as rules
}

test_reviewer_channel_stays_open if {
	v := hold.verdict with input as gx.held(gx.channel, {}) with data.plangate.rules as gx.rules
	v.refused == false
	v.exempt == "reviewer_channel"

	# the built-in channel when no settings name one, and nothing else is open
	b := hold.verdict with input as gx.held("plangate_submit_plan", {}) with data.plangate.rules as gx.rules_off
	b.exempt == "reviewer_channel"
	hold.refused with input as gx.held(gx.read_file, {}) with data.plangate.rules as gx.rules_off
}

test_message_says_what_to_do if {
	m := hold.message with input as gx.held(fx.merge, {}) with data.plangate.rules as gx.rules
	startswith(m, "planning_hold:github.merge_pull_request - 0xWORKER is on a planning hold (placed on demand by ops-alice, for the task \"Refactor the auth middleware\"), so github.merge_pull_request stays closed")
	contains(m, "(github.get_*, fs.read_file)")
	contains(m, "send your plan through review.send")
	contains(m, "No plan has been sent yet.")
	contains(m, "approves the direction only")
}

test_message_for_a_reviewer_hold_without_task if {
	m := hold.message with input as with_hold({"kind": "reviewer", "placedBy": "adversary", "task": null}) with data.plangate.rules as gx.rules
	contains(m, "(placed by the reviewer adversary), so")
	m2 := hold.message with input as with_hold({"task": ""}) with data.plangate.rules as gx.rules
	contains(m2, "(placed on demand by ops-alice), so")
}

test_message_with_an_empty_whitelist if {
	m := hold.message with input as gx.held(fx.merge, {}) with data.plangate.rules as gx.rules_off
	contains(m, "(none are whitelisted, so rely on what you already know)")
	contains(m, "through plangate_submit_plan")
}

test_message_counts_plans_and_push_backs if {
	one := hold.message with input as with_hold({"plans": 1, "pushBacks": 0}) with data.plangate.rules as gx.rules
	contains(one, "1 plan sent so far and 0 push-backs from the reviewer")
	two := hold.message with input as with_hold({"plans": 2, "pushBacks": 1}) with data.plangate.rules as gx.rules
	contains(two, "2 plans sent so far and 1 push-back from the reviewer")
	bare := hold.message with input as object.union(gx.call(fx.merge, {}, {}), {"hold": {"id": "1", "kind": "on_demand", "placedBy": "x"}}) with data.plangate.rules as gx.rules
	contains(bare, "No plan has been sent yet.")
}

test_a_bare_hold_fact_still_refuses_with_a_message if {
	inp := object.union(gx.call(fx.merge, {}, {}), {"hold": {}})
	v := hold.verdict with input as inp with data.plangate.rules as gx.rules
	v == {"held": true, "refused": true, "channel": "review.send"}
	m := hold.message with input as inp with data.plangate.rules as gx.rules
	contains(m, "(placed by the reviewer someone), so github.merge_pull_request stays closed")
	contains(m, "No plan has been sent yet.")
}
