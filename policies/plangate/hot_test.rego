package plangate.hot_test

import data.plangate
import data.plangate.fixtures_test as fx
import data.plangate.gate_fixtures_test as gx

big := gx.file("big.log", 5000)

both(inp) := [h, e] if {
	h := plangate.decide with input as inp with data.plangate.rules as gx.rules
	e := plangate.decision with input as inp with data.plangate.rules as gx.rules
}

# shared is an explanation without the parts only an explanation carries
# (the candidates, the checks, and the call's tool and seat, which the gate
# has), with its settings as bare values.
shared(e) := object.union(object.remove(e, ["candidates", "checks", "tool", "agent", "agentKnown"]), {"settings": {k: s.value | some k, s in e.settings}})

test_only_the_explanation_repeats_the_call_and_seat if {
	inp := gx.call(fx.merge, {}, {})
	[h, e] := both(inp)
	not h.tool
	not h.agent
	not "agentKnown" in object.keys(h)
	[e.tool, e.agent, e.agentKnown] == [fx.merge, inp.agent.id, true]
}

test_hot_is_the_explanation_without_candidates_and_checks if {
	every inp in [
		gx.call(fx.merge, {}, {}),
		gx.call(fx.merge, {}, {"messages": [fx.plan("m1", fx.minute)]}),
		gx.call(fx.merge, {}, {"messages": [fx.plan("m1", 45 * fx.minute)]}),
		gx.call("github.get_pull_request", {}, {}),
		gx.call(gx.read_file, {"path": "big.log"}, {}),
	] {
		[h, e] := both(inp)
		h == shared(e)
		not h.candidates
		not h.checks
	}
}

test_hot_names_the_reviewer_channel_call if {
	[h, e] := both(gx.held(gx.channel, {}))
	h.allowed == true
	h.channelCall == true
	e.checks.planningHold.channelCall == true
	h.reviewerChannel == e.checks.planningHold.channel
	object.remove(h, ["channelCall", "reviewerChannel"]) == shared(e)

	[free, _] := both(gx.call(gx.channel, {}, {}))
	free.channelCall == true
	not free.reviewerChannel
}

test_hot_names_a_held_agents_reviewer_channel if {
	[h, e] := both(gx.held(fx.merge, {}))
	h.check == "planning_hold"
	h.reviewerChannel == gx.channel
	object.remove(h, ["reviewerChannel"]) == shared(e)
}

test_hot_carries_the_read_guard_verdict_when_it_refuses if {
	[h, e] := both(object.union(gx.call(gx.read_file, {"path": "big.log"}, {}), big))
	h.check == "read_guard"
	h.readGuard.maxBytes == 100
	h.readGuard == e.checks.readGuard
	object.remove(h, ["readGuard"]) == shared(e)
}

test_hot_carries_the_pin_verdict_when_it_refuses if {
	inp := object.union(gx.call("fs__write_file", {}, {}), {"call": {"mcp": {"upstream": "fs", "tool": "write_file", "digest": "sha256:bb"}}})
	[h, e] := both(inp)
	h.check == "tool_pin"
	h.toolPin == e.checks.toolPin
	h.toolPin.pinned == "sha256:aa"
	object.remove(h, ["toolPin"]) == shared(e)
}

test_hot_gives_the_settings_in_force_as_values if {
	[h, e] := both(gx.call(fx.merge, {}, {}))
	h.settings == {"mode": "side_effects", "windowMin": e.settings.windowMin.value, "acceptUpstream": e.settings.acceptUpstream.value, "enforce": true}
	e.settings == plangate.effective with input as {"agent": gx.call(fx.merge, {}, {}).agent} with data.plangate.rules as gx.rules
}
