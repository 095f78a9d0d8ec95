package plangate.trust_test

import data.plangate.decision
import data.plangate.fixtures_test as fx
import data.plangate.trust

minute := fx.minute

hour := fx.hour

old_plan := fx.plan_with("m1", 20 * hour, {"runId": "run-7"})

# run_input: the worker's call tagged run-7 with `run` on record (or no record when null).
run_input(run) := object.remove(fx.run_call(fx.merge, "run-7", [old_plan]), ["run"]) if run == null

else := object.union(fx.run_call(fx.merge, "run-7", [old_plan]), {"run": run})

status(run) := s if {
	s := trust.run_status with input as run_input(run)
}

decided(inp) := r if {
	r := decision with input as inp with data.plangate.rules as fx.side_effects
}

# --- runs

test_an_open_run_of_the_acting_seat_lets_an_old_tagged_plan_count if {
	r := decided(run_input(fx.worker_run("run-7")))
	r.allowed
	r.plan.via == "same_run"
	r.run == {"id": "run-7", "status": "open"}
}

test_an_unknown_run_does_not_block_and_the_exception_does_not_apply if {
	status(null) == "unknown"
	r := decided(run_input(null))
	r.allowed == false
	r.code == "plan_required:github.merge_pull_request:stale"
	r.run == {"id": "run-7", "status": "unknown"}

	# A record for another id is not this run's record.
	status(object.union(fx.worker_run("run-7"), {"id": "run-8"})) == "unknown"
}

test_a_fresh_plan_still_counts_in_an_unknown_run if {
	inp := object.union(run_input(null), {"messages": [fx.plan("fresh", minute)]})
	r := decided(inp)
	r.allowed
	r.plan.via == "fresh"
	r.run.status == "unknown"
}

test_another_seats_run_is_foreign if {
	foreign := object.union(fx.worker_run("run-7"), {"seat": "0xOTHER"})
	status(foreign) == "foreign"
	decided(run_input(foreign)).allowed == false
}

test_an_ended_run_no_longer_counts if {
	ended := object.union(fx.worker_run("run-7"), {"endedAt": fx.now - minute})
	status(ended) == "ended"
	decided(run_input(ended)).allowed == false

	# Ended at the decision time: ended.
	status(object.union(fx.worker_run("run-7"), {"endedAt": fx.now})) == "ended"

	# An end recorded after the decision time (an explanation of an earlier moment): still open then.
	status(object.union(fx.worker_run("run-7"), {"endedAt": fx.now + minute})) == "open"
}

test_a_run_expires_at_its_own_bound if {
	status(object.union(fx.worker_run("run-7"), {"expiresAt": fx.now})) == "expired"
	status(object.union(fx.worker_run("run-7"), {"expiresAt": fx.now + 1})) == "open"
}

test_a_run_expires_at_the_rules_maximum_length_even_with_a_later_bound if {
	long := object.union(fx.worker_run("run-7"), {"startedAt": fx.now - (25 * hour), "expiresAt": fx.now + (100 * hour)})

	# Default maximum: 24 hours.
	status(long) == "expired"

	# The rules may allow longer runs (runs.maxMinutes).
	rules := object.union(fx.side_effects, {"runs": {"maxMinutes": 48 * 60, "source": "runs.yaml:1:1"}})
	trust.run_status == "open" with input as run_input(long) with data.plangate.rules as rules

	# or shorter ones.
	short := object.union(fx.side_effects, {"runs": {"maxMinutes": 60, "source": "runs.yaml:1:1"}})
	trust.run_status == "expired" with input as run_input(fx.worker_run("run-7")) with data.plangate.rules as short
}

test_a_run_that_has_not_started_yet if {
	status(object.union(fx.worker_run("run-7"), {"startedAt": fx.now + 1})) == "not_started"
}

test_a_plan_posted_before_the_run_started_does_not_count_by_run if {
	run := object.union(fx.worker_run("run-7"), {"startedAt": fx.now - (19 * hour)})
	r := decided(run_input(run))
	r.allowed == false
	r.run.status == "open"
	r.candidates[0].sameRun == false

	# Posted exactly at the start: it counts.
	at_start := object.union(fx.worker_run("run-7"), {"startedAt": old_plan.at})
	decided(run_input(at_start)).allowed
}

test_no_run_on_the_call_no_run_in_the_decision if {
	r := decided(fx.call(fx.merge, []))
	not r.run
	not trust.run_verdict with input as fx.run_call(fx.merge, "", [])
}

test_a_managers_run_counts_for_a_worker_of_its_recorded_chain if {
	mgr_run := object.union(fx.worker_run("run-7"), {"seat": "0xMGR"})
	inp := object.union(fx.delegated(fx.merge, [old_plan]), {
		"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": ["0xMGR"], "runId": "run-7"},
		"run": mgr_run,
	})
	trust.run_status == "open" with input as inp

	# Without the recorded delegation, the manager's run is foreign to the worker.
	trust.run_status == "foreign" with input as object.remove(inp, ["delegations"])
}

# --- delegations

chain_input(claimed, delegations) := object.union(fx.call(fx.merge, []), {
	"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": claimed, "runId": "run-7"},
	"delegations": delegations,
})

chain(claimed, delegations) := d if {
	d := trust.delegation with input as chain_input(claimed, delegations)
}

d1 := fx.delegation("d1", "0xMGR", "0xWORKER")

d2 := fx.delegation("d2", "0xDIR", "0xMGR")

test_the_chain_is_the_recorded_prefix_of_the_claim if {
	chain(["0xMGR", "0xDIR"], [d1, d2]) == {"claimed": ["0xMGR", "0xDIR"], "chain": ["0xMGR", "0xDIR"]}
	chain(["0xMGR", "0xDIR"], [d1]) == {"claimed": ["0xMGR", "0xDIR"], "chain": ["0xMGR"], "unrecorded": "0xDIR"}

	# A broken first link stops the chain even where a later link is on record.
	chain(["0xMGR", "0xDIR"], [d2]) == {"claimed": ["0xMGR", "0xDIR"], "chain": [], "unrecorded": "0xMGR"}
	chain([], []) == {"claimed": [], "chain": []}
}

test_a_link_must_join_the_right_seats if {
	# 0xMGR delegated to someone else, not to 0xWORKER.
	chain(["0xMGR"], [fx.delegation("d1", "0xMGR", "0xOTHER")]).chain == []

	# A reversed link does not count.
	chain(["0xMGR"], [fx.delegation("d1", "0xWORKER", "0xMGR")]).chain == []
}

test_an_expired_or_revoked_delegation_does_not_count if {
	chain(["0xMGR"], [object.union(d1, {"expiresAt": fx.now})]).unrecorded == "0xMGR"
	chain(["0xMGR"], [object.union(d1, {"expiresAt": fx.now + 1})]).chain == ["0xMGR"]
	chain(["0xMGR"], [object.union(d1, {"revokedAt": fx.now - 1})]).unrecorded == "0xMGR"
	chain(["0xMGR"], [object.union(d1, {"createdAt": fx.now + 1})]).unrecorded == "0xMGR"
}

test_a_revocation_counts_from_when_it_was_recorded if {
	# Revoked at the decision time: in force. Revoked after it (a decision at an earlier time): not yet.
	chain(["0xMGR"], [object.union(d1, {"revokedAt": fx.now})]).unrecorded == "0xMGR"
	chain(["0xMGR"], [object.union(d1, {"revokedAt": fx.now + 1})]).chain == ["0xMGR"]

	# A revocation time that is not a number counts as revoked, never as live.
	chain(["0xMGR"], [object.union(d1, {"revokedAt": "later"})]).unrecorded == "0xMGR"
}

test_a_delegation_for_a_run_counts_only_in_that_run if {
	chain(["0xMGR"], [object.union(d1, {"runId": "run-7"})]).chain == ["0xMGR"]
	chain(["0xMGR"], [object.union(d1, {"runId": "run-8"})]).chain == []
	inp := object.union(fx.delegated(fx.merge, []), {"delegations": [object.union(d1, {"runId": "run-7"})]})
	trust.chain == [] with input as inp
}

test_missing_or_odd_fields_claim_nothing if {
	inp := object.union(fx.call(fx.merge, []), {"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": "0xMGR"}, "delegations": "d1"})
	trust.claimed == [] with input as inp
	trust.recorded == [] with input as inp
}

test_an_unrecorded_manager_plan_does_not_count if {
	m := fx.plan_with("mgr", minute, {"author": "0xMGR", "thread": "crew:mgmt"})
	inp := object.remove(fx.delegated(fx.merge, [m]), ["delegations"])
	r := decision with input as inp with data.plangate.rules as fx.upstream_rules
	r.allowed == false
	r.candidates[0].reasons == ["other_author", "wrong_thread"]
	r.delegation == {"claimed": ["0xMGR"], "chain": [], "unrecorded": "0xMGR"}
	contains(r.message, "The claimed delegation by 0xMGR is not on record")

	# With the delegation on record, the same plan counts.
	ok := decision with input as fx.delegated(fx.merge, [m]) with data.plangate.rules as fx.upstream_rules
	ok.allowed
	ok.delegation == {"claimed": ["0xMGR"], "chain": ["0xMGR"]}
}
