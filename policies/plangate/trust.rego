# METADATA
# title: Recorded runs and delegations
# description: |
#   What the call claims beyond its own seat is checked against recorded
#   facts. The delegation chain is the longest prefix of the call's
#   `delegatedBy` whose every link (manager → worker) is a live recorded
#   delegation (not revoked or expired by the decision time, for the call's run or for any run);
#   the first claimed manager without one is `unrecorded`, and nobody from it
#   on counts. The call's run (`input.run`, as the host recorded it) is `open`
#   only when it belongs to the acting seat or a seat of its recorded chain,
#   has started, was not ended and has not run longer than its own expiry or
#   the rules' maximum run length (`runs.maxMinutes`, default 1440: 24 hours).
#   Only an open run lets a plan tagged with it count however old, and only
#   a plan posted at or after the run started.
package plangate.trust

default max_run_min := 1440

max_run_min := data.plangate.rules.runs.maxMinutes if is_number(data.plangate.rules.runs.maxMinutes)

max_run_ms := max_run_min * 60000

default claimed := []

claimed := input.call.delegatedBy if is_array(input.call.delegatedBy)

default recorded := []

recorded := input.delegations if is_array(input.delegations)

# worker_of(i): who the i-th claimed manager delegated to.
worker_of(0) := input.call.agent

worker_of(i) := claimed[i - 1] if i > 0

run_id := input.call.runId if {
	is_string(input.call.runId)
	input.call.runId != ""
}

live(d) if {
	not revoked_delegation(d)
	d.createdAt <= input.now
	not expired_delegation(d)
	for_this_run(d)
}

# A revocation counts from when it was recorded: a decision at an earlier
# time judges the delegation as it stood then, as for an expiry.
revoked_delegation(d) if {
	object.get(d, "revokedAt", null) != null
	not revoked_later(d)
}

revoked_later(d) if {
	is_number(d.revokedAt)
	d.revokedAt > input.now
}

expired_delegation(d) if {
	is_number(d.expiresAt)
	d.expiresAt <= input.now
}

for_this_run(d) if object.get(d, "runId", null) == null

for_this_run(d) if d.runId == run_id

link_recorded(i) if {
	some d in recorded
	d.manager == claimed[i]
	d.worker == worker_of(i)
	live(d)
}

broken := {i | some i, _ in claimed; not link_recorded(i)}

chain_length := min(broken) if count(broken) > 0

else := count(claimed)

# chain: the recorded delegation chain, nearest manager first.
chain := array.slice(claimed, 0, chain_length)

chain_ids := {id | some id in chain}

delegation := object.union({"claimed": claimed, "chain": chain}, unrecorded_part)

unrecorded_part := {"unrecorded": unrecorded} if unrecorded

else := {}

# unrecorded: the first claimed manager without a recorded delegation, if any.
unrecorded := claimed[chain_length] if {
	count(claimed) > 0
	chain_length < count(claimed)
}

# --- the call's run

default run := null

run := input.run if input.run.id == run_id

run_ends_at := min({run.expiresAt, run.startedAt + max_run_ms})

run_status := "unknown" if {
	run == null
} else := "foreign" if {
	not run.seat in ({input.call.agent} | chain_ids)
} else := "ended" if {
	is_number(run.endedAt)
	run.endedAt <= input.now
} else := "not_started" if {
	run.startedAt > input.now
} else := "expired" if {
	run_ends_at <= input.now
} else := "open"

run_open if run_status == "open"

# run_verdict: what the decision says about the call's run.
run_verdict := {"id": run_id, "status": run_status} if run_id

# same_run(m): m is tagged with the call's open run and was posted since it started.
same_run(m) if {
	# most messages have no run: they fail here, before the call's run is looked at
	m.runId
	m.runId == run_id
	run_open
	m.at >= run.startedAt
}
