# METADATA
# title: Damaged inputs
# description: |
#   Inputs the gate never builds but the OPA data API evaluates as given:
#   a damaged fact refuses no less, and allows no more, than a whole one.
package plangate.damaged_test

import data.plangate
import data.plangate.fixtures_test as fx
import data.plangate.gate_fixtures_test as gx

# A hold whose message cannot be built gets no answer, not plan-required's message.
test_a_hold_message_that_cannot_be_built_is_no_answer if {
	inp := gx.call(fx.merge, {}, {"hold": object.union(gx.hold, {"placedBy": 42})})
	not plangate.decide with input as inp with data.plangate.rules as gx.rules
	not plangate.decision with input as inp with data.plangate.rules as gx.rules
}

# A recorded upstream seat whose id is not a string speaks in no thread (as threads_of says).
test_an_upstream_seat_without_a_string_id_speaks_nowhere if {
	inp := object.union(fx.call(fx.merge, [fx.plan_with("m", fx.minute, {"author": 7, "thread": "org"})]), {
		"call": {"delegatedBy": [7]},
		"upstream": [{"id": 7, "known": true, "crews": ["mgmt"]}],
		"delegations": [fx.delegation("d1", 7, "0xWORKER")],
	})
	d := plangate.decide with input as inp with data.plangate.rules as fx.upstream_rules
	d.allowed == false
}

# An acting seat whose id is not a string: no plan of its counts (no answer, as before).
test_an_acting_seat_without_a_string_id_has_no_plan if {
	inp := {
		"now": fx.now, "call": {"agent": 5, "tool": fx.merge, "delegatedBy": []}, "agent": {"id": 5, "crews": []}, "upstream": [],
		"messages": [{"id": "p", "thread": "org", "author": 5, "authorKind": "agent", "kind": "plan", "at": fx.now - fx.minute}],
	}
	not plangate.decide with input as inp with data.plangate.rules as fx.side_effects
}

# A stale plan whose age cannot be phrased: answered before this change (with the "none" wording).
test_a_stale_plan_without_a_numeric_time_still_gets_an_answer if {
	inp := fx.call(fx.merge, [fx.plan_with("s", 0, {"at": null})])
	d := plangate.decide with input as inp with data.plangate.rules as fx.side_effects
	d.code == "plan_required:github.merge_pull_request:stale"
}
