package plangate.compose_test

import data.plangate
import data.plangate.compose
import data.plangate.fixtures_test as fx
import data.plangate.gate_fixtures_test as gx

big := gx.file("big.log", 5000)

decide(inp) := d if {
	d := plangate.decision with input as inp with data.plangate.rules as gx.rules
}

test_the_order_is_pin_then_read_guard_then_hold_then_plan_required_then_approval if {
	compose.order == ["tool_pin", "read_guard", "planning_hold", "plan_required", "approval"]
}

# through_gateway: a call of fs's write_file through the gateway, its definition's digest now.
through_gateway(inp, digest) := object.union(inp, {"call": {"mcp": {"upstream": "fs", "tool": "write_file", "digest": digest}}})

test_a_changed_pinned_tool_is_refused_first if {
	# held, no plan, and a changed definition: the pin decides
	d := decide(through_gateway(gx.held("fs__write_file", {}), "sha256:bb"))
	d.allowed == false
	d.check == "tool_pin"
	d.code == "tool_changed:fs__write_file"
	startswith(d.message, "tool_changed:fs__write_file - the definition of fs__write_file (write_file on the upstream fs)")
	d.checks.toolPin == {"state": "changed", "refused": true, "pinned": "sha256:aa"}
	d.checks.planningHold.refused == true
}

test_a_matching_pin_and_no_pin_are_decided_as_before if {
	m := fx.plan("m1", fx.minute)
	pinned := decide(through_gateway(gx.call("fs__write_file", {}, {"messages": [m]}), "sha256:aa"))
	pinned.allowed == true
	pinned.checks.toolPin == {"state": "pinned", "refused": false, "pinned": "sha256:aa"}
	unpinned := decide(gx.call(fx.merge, {}, {"messages": [m]}))
	unpinned.allowed == true
	unpinned.checks.toolPin == {"state": "unpinned", "refused": false}
	hot := plangate.decide with input as through_gateway(gx.call("fs__write_file", {}, {}), "sha256:bb") with data.plangate.rules as gx.rules
	hot.code == "tool_changed:fs__write_file"
	hot.toolPin == {"state": "changed", "refused": true, "pinned": "sha256:aa"}
	not pinned.toolPin
}

test_read_guard_wins_over_the_hold if {
	# fs.read_file is whitelisted, so only the read guard refuses
	d := decide(object.union(gx.held(gx.read_file, {"path": "big.log"}), big))
	d.allowed == false
	d.check == "read_guard"
	d.code == "read_guard:fs.read_file"
	startswith(d.message, "read_guard:fs.read_file - ")
	d.checks.planningHold.refused == false
	d.checks.planningHold.exempt == "whitelist"

	# fs.cat is not whitelisted: both refuse, the read guard decides
	both := decide(object.union(gx.held("fs.cat", {"file": "big.log"}), big))
	both.check == "read_guard"
	both.code == "read_guard:fs.cat"
	both.checks.planningHold.refused == true
	both.checks.readGuard.refused == true
}

test_hold_wins_over_plan_required if {
	d := decide(gx.held(fx.merge, {}))
	d.allowed == false
	d.check == "planning_hold"
	d.code == "planning_hold:github.merge_pull_request"
	startswith(d.message, "planning_hold:github.merge_pull_request - ")
	not d.reason
	d.gated == true
	d.checks.planRequired == {"allowed": false, "gated": true, "code": "plan_required:github.merge_pull_request:none"}
	d.checks.readGuard.status == "not_listed"
}

test_plan_required_decides_when_nothing_earlier_refuses if {
	d := decide(gx.call(fx.merge, {}, {}))
	d.allowed == false
	d.check == "plan_required"
	d.code == "plan_required:github.merge_pull_request:none"
	d.reason == "none"
	d.checks.planningHold == {"held": false, "refused": false, "channel": "review.send", "channelCall": false}
}

test_allowed_when_every_check_passes if {
	m := fx.plan("m1", fx.minute)
	d := decide(gx.call(fx.merge, {}, {"messages": [m]}))
	d.allowed == true
	not d.check
	not d.code
	d.plan.id == "m1"
	d.checks.planRequired == {"allowed": true, "gated": true}

	# a whitelisted read under the ceiling during a hold
	r := decide(object.union(gx.held(gx.read_file, {"path": "big.log"}), gx.file("big.log", 10)))
	r.allowed == true
	r.checks.readGuard.status == "under"
	r.checks.planningHold.exempt == "whitelist"
}

test_the_reviewer_channel_never_needs_a_plan if {
	# review.send is a `say` here; classified as an effect it would be gated
	as_effect := object.union(gx.rules, {"tools": {"exact": {"review.send": "effect"}}})
	every inp in [gx.held(gx.channel, {}), gx.call(gx.channel, {}, {})] {
		d := plangate.decision with input as inp with data.plangate.rules as as_effect
		d.allowed == true
		d.gated == true
		not d.code
		not d.message
		not d.reason
		d.checks.planRequired == {"allowed": false, "gated": true, "exempt": "reviewer_channel"}
		d.checks.planningHold.channelCall == true
	}
}

test_a_channel_call_is_to_the_channel_in_force_wherever_it_is_named if {
	# built in: no planning-gate settings at all
	built_in := plangate.decision with input as gx.call("plangate_submit_plan", {}, {}) with data.plangate.rules as gx.rules_off
	built_in.checks.planningHold.channelCall == true
	not built_in.code

	# named by the profile the seat uses (0xWORKER is in desk, which picks strict)
	by_profile := json.patch(gx.rules, [{"op": "add", "path": "/planningGate/profiles/strict/reviewerChannel", "value": "review.strict"}])
	d := plangate.decision with input as gx.call("review.strict", {}, {}) with data.plangate.rules as by_profile
	d.checks.planningHold.channelCall == true

	# another seat's channel is no channel call for this one
	other := plangate.decision with input as gx.call("review.send", {}, {}) with data.plangate.rules as by_profile
	other.checks.planningHold.channelCall == false
}

test_needs_is_passed_on_until_the_host_reports_the_file if {
	d := decide(gx.call(gx.read_file, {"path": "big.log"}, {}))
	d.needs == {"files": ["big.log"]}
	d.allowed == true
	e := decide(object.union(gx.call(gx.read_file, {"path": "big.log"}, {}), big))
	not e.needs
	e.allowed == false
}

test_planning_gate_off_still_honours_a_hold if {
	# an on-demand hold works whatever the setting
	d := plangate.decision with input as gx.held(fx.merge, {}) with data.plangate.rules as gx.rules_off
	d.check == "planning_hold"
}

test_a_hold_refusal_under_a_shadow_rule_is_not_marked_shadow if {
	shadow_rules := object.union(gx.rules, {"planRequired": {
		"workspace": {"mode": "side_effects", "enforce": false, "source": "w:1:1"},
		"crews": {}, "agents": {},
	}})
	d := plangate.decision with input as gx.held(fx.merge, {}) with data.plangate.rules as shadow_rules
	d.allowed == false
	d.check == "planning_hold"
	not d.shadow
}

test_a_shadow_would_be_refusal_is_answered_with_its_outcome if {
	shadow_rules := object.union(gx.rules, {"planRequired": {"workspace": {"enforce": false}}})
	d := plangate.decide with input as gx.call(fx.merge, {}, {}) with data.plangate.rules as shadow_rules
	d.allowed == true
	d.shadow == true
	d.code == "plan_required:github.merge_pull_request:none"
	d.reason == "none"
	startswith(d.message, "plan_required:github.merge_pull_request:none - ")
	not d.check
	not d.plan
}

test_a_refusal_whose_message_cannot_be_built_gets_no_answer if {
	# a seat id that is not a string: the code can be built, its message not
	inp := object.union(gx.call(fx.merge, {}, {}), {"agent": {"id": 7, "known": true, "crews": []}})
	not plangate.decide with input as inp with data.plangate.rules as gx.rules
	not plangate.decision with input as inp with data.plangate.rules as gx.rules
}

test_a_reviewer_channel_call_under_a_shadow_rule_is_no_would_be_refusal if {
	# enforced, plan-required never refuses the channel: so a rule that only
	# measures has nothing to report for it either
	shadow_rules := object.union(gx.rules, {
		"planRequired": {"workspace": {"mode": "side_effects", "enforce": false, "source": "w:1:1"}, "crews": {}, "agents": {}},
		"tools": {"exact": {"review.send": "effect"}},
	})
	every inp in [gx.held(gx.channel, {}), gx.call(gx.channel, {}, {})] {
		d := plangate.decide with input as inp with data.plangate.rules as shadow_rules
		d.allowed == true
		d.channelCall == true
		not d.shadow
		not d.code
		not d.message
		not d.reason
		x := plangate.decision with input as inp with data.plangate.rules as shadow_rules
		not x.shadow
		not x.code
		x.checks.planRequired == {"allowed": true, "gated": true, "exempt": "reviewer_channel"}
	}
}
