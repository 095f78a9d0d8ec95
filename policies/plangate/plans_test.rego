package plangate.plans_test

import data.plangate.fixtures_test as fx
import data.plangate.plans

minute := fx.minute

# candidate is how the policy judges one message for a plain call by the
# worker under a workspace side_effects rule with a 30-minute window.
candidate(m) := c if {
	cs := plans.candidates with input as fx.call(fx.merge, [m]) with data.plangate.rules as fx.side_effects
	count(cs) == 1
	c := cs[0]
}

reasons(m) := candidate(m).reasons

# run_reasons judges one message for a call tagged with run id `run`.
run_candidate(run, m) := c if {
	cs := plans.candidates with input as fx.run_call(fx.merge, run, [m]) with data.plangate.rules as fx.side_effects
	c := cs[0]
}

# up_reasons judges one message for a call delegated by 0xMGR, with
# acceptUpstream on for the worker (window 10) unless rules say otherwise.
up_reasons_with(rules, m) := r if {
	cs := plans.candidates with input as fx.delegated(fx.merge, [m]) with data.plangate.rules as rules
	r := cs[0].reasons
}

up_reasons(m) := up_reasons_with(fx.upstream_rules, m)

by_manager(id, thread, ago) := fx.plan_with(id, ago, {"author": "0xMGR", "thread": thread})

# --- a plan that counts

test_own_fresh_plan_counts_and_is_described if {
	m := fx.plan("m1", 5 * minute)
	candidate(m) == object.union(m, {"counts": true, "reasons": [], "ageMs": 5 * minute, "sameRun": false})
}

test_own_plan_counts_in_every_thread_the_agent_speaks_in if {
	every thread in ["agent:0xWORKER", "crew:desk", "crew:news", "org"] {
		reasons(fx.plan_with("m1", minute, {"thread": thread})) == []
	}
}

test_the_threads_a_seat_speaks_in if {
	threads := ["agent:0xWORKER", "crew:desk", "crew:news", "org", "agent:0xLONE", "crew:mgmt", "crew:", "agent:"]
	[t | some t in threads; plans.speaks_in(fx.worker, t)] == ["agent:0xWORKER", "crew:desk", "crew:news", "org"]
	[t | some t in threads; plans.speaks_in({"id": "0xLONE", "known": false, "crews": []}, t)] == ["org", "agent:0xLONE"]
	[t | some t in threads; plans.speaks_in({"id": "0xLONE"}, t)] == ["org", "agent:0xLONE"]
	[t | some t in threads; plans.speaks_in({"id": 7, "crews": ["desk"]}, t)] == []
}

# --- 1. kind

test_not_plan if {
	reasons(fx.plan_with("m1", minute, {"kind": "note"})) == ["not_plan"]
	reasons(fx.plan_with("m1", minute, {"kind": "PLAN"})) == ["not_plan"]
	reasons(fx.plan_with("m1", minute, {"kind": "plans"})) == ["not_plan"]
	candidate(fx.plan_with("m1", minute, {"kind": "note"})).counts == false
}

test_message_without_kind_is_not_a_plan if {
	reasons(object.remove(fx.plan("m1", minute), ["kind"])) == ["not_plan"]
	reasons(fx.plan_with("m1", minute, {"kind": null})) == ["not_plan"]
}

# --- 2. author

test_human_author if {
	reasons(fx.plan_with("m1", minute, {"author": "alice", "authorKind": "human"})) == ["human_author"]
}

test_human_whose_name_is_the_agent_id if {
	m := fx.plan_with("m1", minute, {"authorKind": "human"})
	m.author == "0xWORKER"
	reasons(m) == ["human_author"]
}

test_message_without_author_kind_is_not_written_as_an_agent if {
	reasons(object.remove(fx.plan("m1", minute), ["authorKind"])) == ["human_author"]
	reasons(fx.plan_with("m1", minute, {"authorKind": "Agent"})) == ["human_author"]
}

test_other_author if {
	# 0xOTHER's plan in the worker's crew thread: right thread, wrong author.
	reasons(fx.plan_with("m1", minute, {"author": "0xOTHER", "thread": "crew:desk"})) == ["other_author"]
	reasons(fx.plan_with("m1", minute, {"author": "0xOTHER", "thread": "agent:0xOTHER"})) == ["other_author", "wrong_thread"]
}

test_manager_plan_without_delegation_is_other_author if {
	# Not delegated: 0xMGR is just another seat, even with acceptUpstream on.
	cs := plans.candidates with input as fx.call(fx.merge, [by_manager("m1", "org", minute)]) with data.plangate.rules as fx.upstream_rules
	cs[0].reasons == ["other_author"]
}

# --- 3. thread

test_wrong_thread_sibling_crew if {
	reasons(fx.plan_with("m1", minute, {"thread": "crew:sports"})) == ["wrong_thread"]
}

test_wrong_thread_child_crew if {
	reasons(fx.plan_with("m1", minute, {"thread": "crew:desk-night"})) == ["wrong_thread"]
}

test_wrong_thread_another_agents_thread if {
	reasons(fx.plan_with("m1", minute, {"thread": "agent:0xOTHER"})) == ["wrong_thread"]
	reasons(fx.plan_with("m1", minute, {"thread": "agent:0xMGR"})) == ["wrong_thread"]
}

test_wrong_thread_unrelated_names if {
	every thread in ["crew:mgmt", "desk", "agent:0xWORKERX", "crew:", "ORG", ""] {
		reasons(fx.plan_with("m1", minute, {"thread": thread})) == ["wrong_thread"]
	}
}

# --- 4. freshness

test_future_message_never_counts if {
	reasons(fx.plan("m1", -1)) == ["future"]
	candidate(fx.plan("m1", -1)).ageMs == -1
	run_candidate("run-7", fx.plan_with("m1", -1, {"runId": "run-7"})).reasons == ["future"]
}

test_message_at_decision_time_counts if {
	c := candidate(fx.plan("m1", 0))
	c.counts
	c.ageMs == 0
}

test_window_boundary if {
	# age == window is stale; one millisecond younger is fresh.
	reasons(fx.plan("m1", 30 * minute)) == ["stale"]
	reasons(fx.plan("m1", (30 * minute) - 1)) == []
	reasons(fx.plan("m1", (30 * minute) + 1)) == ["stale"]
}

test_window_comes_from_the_settings if {
	rules := fx.rules_with({"mode": "side_effects", "windowMin": 5, "source": "ws.yaml:1:1"}, {}, {})
	cs := plans.candidates with input as fx.call(fx.merge, [fx.plan("a", 5 * minute), fx.plan("b", (5 * minute) - 1)])
		with data.plangate.rules as rules
	[c.reasons | some c in cs] == [["stale"], []]
}

test_default_window_is_30_minutes if {
	cs := plans.candidates with input as fx.call(fx.merge, [fx.plan("a", 30 * minute), fx.plan("b", (30 * minute) - 1)])
		with data.plangate.rules as fx.rules_with({"mode": "side_effects", "source": "ws.yaml:1:1"}, {}, {})
	[c.reasons | some c in cs] == [["stale"], []]
}

# --- same-run exception

test_same_run_plan_counts_however_old if {
	c := run_candidate("run-7", fx.plan_with("m1", (22 * 60) * minute, {"runId": "run-7"}))
	c.counts
	c.reasons == []
	c.sameRun == true
}

test_different_run_id_does_not_count_when_old if {
	c := run_candidate("run-7", fx.plan_with("m1", 60 * minute, {"runId": "run-6"}))
	c.reasons == ["stale"]
	c.sameRun == false
}

test_fresh_plan_counts_whatever_its_run if {
	c := run_candidate("run-7", fx.plan_with("m1", minute, {"runId": "run-6"}))
	c.counts
	c.sameRun == false
}

test_untagged_old_plan_in_a_run_is_stale if {
	c := run_candidate("run-7", fx.plan("m1", 60 * minute))
	c.reasons == ["stale"]
	c.sameRun == false
}

test_empty_absent_or_null_run_id_never_matches if {
	old := fx.plan("m1", 60 * minute)

	# call without runId, message without runId
	candidate(old).reasons == ["stale"]
	candidate(old).sameRun == false

	# empty run id on the call
	run_candidate("", old).reasons == ["stale"]
	run_candidate("", fx.plan_with("m1", 60 * minute, {"runId": ""})).reasons == ["stale"]
	run_candidate("", fx.plan_with("m1", 60 * minute, {"runId": ""})).sameRun == false

	# null run id on the call
	run_candidate(null, old).reasons == ["stale"]
	run_candidate(null, fx.plan_with("m1", 60 * minute, {"runId": null})).reasons == ["stale"]

	# a run id that is not a string
	run_candidate(7, fx.plan_with("m1", 60 * minute, {"runId": 7})).reasons == ["stale"]

	# message tagged, call not
	candidate(fx.plan_with("m1", 60 * minute, {"runId": "run-7"})).reasons == ["stale"]
}

test_same_run_does_not_rescue_other_failures if {
	# A run-tagged note by another seat in a sibling crew still fails on all of those.
	m := fx.plan_with("m1", 60 * minute, {"runId": "run-7", "kind": "note", "author": "0xOTHER", "thread": "crew:sports"})
	run_candidate("run-7", m).reasons == ["not_plan", "other_author", "wrong_thread"]
}

test_reasons_are_listed_in_a_fixed_order if {
	m := {"id": "m1", "thread": "crew:sports", "author": "alice", "authorKind": "human", "kind": "note", "at": fx.now - (60 * minute)}
	reasons(m) == ["not_plan", "human_author", "wrong_thread", "stale"]
	f := {"id": "m2", "thread": "agent:0xOTHER", "author": "0xOTHER", "authorKind": "agent", "kind": "note", "at": fx.now + 1}
	reasons(f) == ["not_plan", "other_author", "wrong_thread", "future"]
}

# --- delegation

test_upstream_plan_counts_where_the_upstream_agent_speaks if {
	every thread in ["agent:0xMGR", "crew:mgmt", "org"] {
		up_reasons(by_manager("m1", thread, minute)) == []
	}
}

test_upstream_plan_does_not_count_where_only_the_worker_speaks if {
	every thread in ["agent:0xWORKER", "crew:desk", "crew:news"] {
		up_reasons(by_manager("m1", thread, minute)) == ["wrong_thread"]
	}
}

test_upstream_plan_does_not_count_without_accept_upstream if {
	up_reasons_with(fx.side_effects, by_manager("m1", "crew:mgmt", minute)) == ["upstream_not_accepted"]
	up_reasons_with(fx.side_effects, by_manager("m1", "crew:desk", minute)) == ["upstream_not_accepted", "wrong_thread"]
	up_reasons_with(fx.side_effects, fx.plan_with("m1", minute, {"author": "0xMGR", "thread": "org", "kind": "note"})) == ["not_plan", "upstream_not_accepted"]
}

test_accept_upstream_is_read_from_the_worker_not_the_manager if {
	# Only the manager's own rule accepts upstream; the worker's (workspace) does not.
	rules := fx.rules_with(
		{"mode": "side_effects", "acceptUpstream": false, "source": "ws.yaml:1:1"},
		{"mgmt": {"mode": "side_effects", "acceptUpstream": true, "source": "mgmt.yaml:1:1"}},
		{"0xMGR": {"mode": "side_effects", "acceptUpstream": true, "source": "agents.yaml:1:1"}},
	)
	up_reasons_with(rules, by_manager("m1", "crew:mgmt", minute)) == ["upstream_not_accepted"]
}

test_the_workers_window_applies_to_upstream_plans if {
	# The worker's window is 10 minutes; the manager's own 120 does not matter.
	up_reasons(by_manager("m1", "crew:mgmt", 10 * minute)) == ["stale"]
	up_reasons(by_manager("m1", "crew:mgmt", (10 * minute) - 1)) == []
}

test_upstream_human_is_still_a_human if {
	up_reasons(fx.plan_with("m1", minute, {"author": "0xMGR", "authorKind": "human", "thread": "crew:mgmt"})) == ["human_author"]
}

test_worker_own_plan_still_counts_when_delegated if {
	up_reasons(fx.plan_with("m1", minute, {"thread": "crew:desk"})) == []
	up_reasons(fx.plan_with("m1", minute, {"thread": "crew:mgmt"})) == ["wrong_thread"]
}

test_whole_delegation_chain_counts if {
	director := {"id": "0xDIR", "known": true, "crews": ["board"]}
	inp := object.union(fx.delegated(fx.merge, [fx.plan_with("m1", minute, {"author": "0xDIR", "thread": "crew:board"})]), {
		"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": ["0xMGR", "0xDIR"]},
		"upstream": [fx.manager, director],
		"delegations": [fx.delegation("d1", "0xMGR", "0xWORKER"), fx.delegation("d2", "0xDIR", "0xMGR")],
	})
	cs := plans.candidates with input as inp with data.plangate.rules as fx.upstream_rules
	cs[0].reasons == []
	plans.upstream_ids == {"0xMGR", "0xDIR"} with input as inp
}

test_agent_in_its_own_chain_is_not_upstream if {
	inp := object.union(fx.delegated(fx.merge, [fx.plan_with("m1", minute, {"thread": "crew:desk"})]), {"upstream": [fx.worker, fx.manager]})
	plans.upstream_ids == {"0xMGR"} with input as inp
	cs := plans.candidates with input as inp with data.plangate.rules as fx.side_effects
	cs[0].reasons == []
}

# --- the lists and the chosen plan

mixed := [
	fx.plan("old", 20 * minute), fx.plan("new", 5 * minute), fx.plan_with("note", minute, {"kind": "note"}), fx.plan("future", 0 - minute), fx.plan("stale", 45 * minute), fx.plan_with("stale_note", 45 * minute, {"kind": "note"}),
]

test_candidates_keep_input_order_and_lists_split_them if {
	cs := plans.candidates with input as fx.call(fx.merge, mixed) with data.plangate.rules as fx.side_effects
	[c.id | some c in cs] == ["old", "new", "note", "future", "stale", "stale_note"]
	[c.counts | some c in cs] == [true, true, false, false, false, false]
	[c.id | some c in plans.counting] == ["old", "new"] with input as fx.call(fx.merge, mixed) with data.plangate.rules as fx.side_effects
	[c.id | some c in plans.stale_only] == ["stale"] with input as fx.call(fx.merge, mixed) with data.plangate.rules as fx.side_effects
}

test_plan_is_the_newest_counting_message if {
	p := plans.plan with input as fx.call(fx.merge, mixed) with data.plangate.rules as fx.side_effects
	p == object.union(fx.plan("new", 5 * minute), {"via": "fresh"})
}

test_plan_via_same_run if {
	old := fx.plan_with("old", 120 * minute, {"runId": "run-7"})
	p := plans.plan with input as fx.run_call(fx.merge, "run-7", [old]) with data.plangate.rules as fx.side_effects
	p == object.union(old, {"via": "same_run"})
}

test_fresh_run_tagged_plan_is_via_fresh if {
	m := fx.plan_with("m1", minute, {"runId": "run-7"})
	p := plans.plan with input as fx.run_call(fx.merge, "run-7", [m]) with data.plangate.rules as fx.side_effects
	p.via == "fresh"
	p.runId == "run-7"
}

test_newer_fresh_plan_beats_older_same_run_plan if {
	msgs := [fx.plan("fresh", 10 * minute), fx.plan_with("run", 120 * minute, {"runId": "run-7"})]
	p := plans.plan with input as fx.run_call(fx.merge, "run-7", msgs) with data.plangate.rules as fx.side_effects
	p.id == "fresh"
	p.via == "fresh"
}

test_newest_counting_even_when_a_newer_message_does_not_count if {
	msgs := [fx.plan_with("runplan", 90 * minute, {"runId": "run-7"}), fx.plan("stale", 40 * minute), fx.plan_with("wrong", minute, {"thread": "crew:sports"})]
	p := plans.plan with input as fx.run_call(fx.merge, "run-7", msgs) with data.plangate.rules as fx.side_effects
	p.id == "runplan"
	p.via == "same_run"
}

test_plan_tie_goes_to_the_first_in_input_order if {
	msgs := [fx.plan_with("a", minute, {"thread": "org"}), fx.plan("b", minute)]
	p := plans.plan with input as fx.call(fx.merge, msgs) with data.plangate.rules as fx.side_effects
	p.id == "a"
}

test_upstream_plan_can_be_the_plan if {
	p := plans.plan with input as fx.delegated(fx.merge, [fx.plan("own", 8 * minute), by_manager("mgr", "crew:mgmt", 2 * minute)])
		with data.plangate.rules as fx.upstream_rules
	p.id == "mgr"
	p.author == "0xMGR"
}

test_no_plan_when_nothing_counts if {
	not plans.plan with input as fx.call(fx.merge, [fx.plan("stale", 45 * minute)]) with data.plangate.rules as fx.side_effects
	not plans.plan with input as fx.call(fx.merge, []) with data.plangate.rules as fx.side_effects
}

test_missing_messages_and_upstream if {
	inp := object.remove(fx.call(fx.merge, []), ["messages", "upstream"])
	plans.candidates == [] with input as inp with data.plangate.rules as fx.side_effects
	plans.upstream_ids == set() with input as inp
}

test_accept_upstream_flag if {
	plans.accept_upstream with input as fx.call(fx.merge, []) with data.plangate.rules as fx.upstream_rules
	not plans.accept_upstream with input as fx.call(fx.merge, []) with data.plangate.rules as fx.side_effects
	not plans.accept_upstream with input as fx.call(fx.merge, [])
}
