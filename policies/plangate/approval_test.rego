package plangate.approval_test

import data.plangate
import data.plangate.fixtures_test as fx

digest := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

# A plan-required mode off, so only the human gate decides.
base_rules := fx.workspace_rules("off")

rules_with(approvals) := object.union(base_rules, {"approvals": approvals})

smallest := rules_with({"workspace": {"tools": [fx.merge], "source": "a.yaml:1:13"}, "crews": {}, "agents": {}})

record(id, status, fields) := object.union(
	{
		"id": id, "seat": "0xWORKER", "tool": fx.merge, "runId": null, "digest": digest,
		"status": status, "requestedAt": fx.now - fx.minute, "expiresAt": null,
	},
	fields,
)

gathered(records) := object.union(fx.call(fx.merge, []), {
	"call": {"agent": "0xWORKER", "tool": fx.merge, "delegatedBy": [], "args": {"pr": 7}},
	"approval": {"digest": digest, "newId": "new-1", "records": records},
})

decide(inp, rules) := d if {
	d := plangate.decide with input as inp with data.plangate.rules as rules
}

test_the_smallest_rule_needs_approval_and_refuses_without_facts if {
	d := decide(fx.call(fx.merge, []), smallest)
	d.allowed == false
	d.check == "approval"
	d.code == "approval_required:github.merge_pull_request:pending"
	d.approval.gathered == false
	d.approval.windowMin == 15
	d.approval.approvers == {"roles": ["approver"], "names": []}
	contains(d.message, "(not recorded yet)")
}

test_no_record_opens_a_new_request if {
	d := decide(gathered([]), smallest)
	d.code == "approval_required:github.merge_pull_request:pending"
	d.approval.open == true
	d.approval.request == "new-1"
	d.approval.scope == "workspace"
	contains(d.message, "Request new-1 is waiting for an approver.")
	contains(d.message, "the workspace approvals rule")
	contains(d.message, "any change to the arguments needs a new approval")
}

test_a_pending_request_is_joined if {
	d := decide(gathered([record("r1", "pending", {})]), smallest)
	d.code == "approval_required:github.merge_pull_request:pending"
	d.approval.request == "r1"
	not d.approval.open
}

test_a_granted_approval_lets_the_call_through_once_to_be_used if {
	d := decide(gathered([record("r1", "granted", {"expiresAt": fx.now + 1})]), smallest)
	d.allowed == true
	d.approval.status == "granted"
	d.approval.request == "r1"
	not d.code
}

test_an_expired_approval_never_counts if {
	d := decide(gathered([record("r1", "granted", {"expiresAt": fx.now})]), smallest)
	d.code == "approval_required:github.merge_pull_request:expired"
	d.approval.open == true
	d.approval.request == "new-1"
	contains(d.message, "The approval of request r1 expired before it was used; request new-1")
}

test_a_used_approval_never_counts if {
	d := decide(gathered([record("r1", "used", {"expiresAt": fx.now + 1})]), smallest)
	d.code == "approval_required:github.merge_pull_request:used"
	contains(d.message, "The approval of request r1 was used by an earlier call; request new-1")
}

test_a_denial_stands if {
	d := decide(gathered([record("r1", "denied", {})]), smallest)
	d.code == "approval_required:github.merge_pull_request:denied"
	d.approval.request == "r1"
	not d.approval.open
	contains(d.message, "An approver denied request r1; do not retry this call unchanged.")
}

test_another_seat_tool_run_or_digest_never_counts if {
	granted := {"expiresAt": fx.now + 1}
	some changed in [{"seat": "0xOTHER"}, {"tool": "github.other"}, {"runId": "run-9"}, {"digest": "00"}]
	d := decide(gathered([record("r1", "granted", object.union(granted, changed))]), smallest)
	d.code == "approval_required:github.merge_pull_request:pending"
	d.approval.request == "new-1"
}

test_calls_the_rule_does_not_name_need_nothing if {
	d := decide(fx.call("github.get_pull_request", []), smallest)
	d.allowed == true
	not d.approval
}

test_plan_required_refuses_first if {
	rules := object.union(fx.side_effects, {"approvals": smallest.approvals})
	d := decide(fx.call(fx.merge, []), rules)
	d.code == "plan_required:github.merge_pull_request:none"
	not d.approval

	# with a plan, the approval is asked for, and the plan that counted is named
	p := decide(fx.call(fx.merge, [fx.plan("m1", fx.minute)]), rules)
	p.code == "approval_required:github.merge_pull_request:pending"
	p.plan.id == "m1"
}

test_narrowest_rule_first if {
	rules := rules_with({
		"workspace": {"tools": [fx.merge]},
		"crews": {"news": {"tools": ["billing.*"], "windowMin": 5}, "desk": {"classes": ["spend"], "approvers": {"roles": [], "names": ["ops-alice"]}}},
		"agents": {"0xOTHER": {"tools": []}},
	})

	# desk (nearest) beats news and the workspace: merge is no longer named
	decide(fx.call(fx.merge, []), rules).allowed == true
	d := decide(fx.call(fx.spend, []), rules)
	d.code == "approval_required:billing.propose_spend:pending"
	d.approval.scope == "crew"
	d.approval.approvers.names == ["ops-alice"]
	contains(d.message, "the crew approvals rule for desk")

	# an agent's own rule carves it out
	carved := object.union(rules, {"approvals": {"agents": {"0xWORKER": {"tools": []}}}})
	decide(fx.call(fx.spend, []), carved).allowed == true

	# a pattern at the crew scope
	news := object.union(rules_with({"workspace": {"tools": []}, "crews": {"news": {"tools": ["billing.*"], "windowMin": 5}}, "agents": {}}), {})
	n := decide(fx.call(fx.spend, []), news)
	n.approval.windowMin == 5
	contains(n.message, "the crew approvals rule for news")
	a := decide(fx.call(fx.spend, []), rules_with({"workspace": {}, "crews": {}, "agents": {"0xWORKER": {"tools": ["billing.propose_spend"]}}}))
	contains(a.message, "the agent approvals rule for 0xWORKER")
}

test_conditions_on_arguments if {
	rules := rules_with({"workspace": {"tools": [fx.merge], "when": {"base": "main"}}, "crews": {}, "agents": {}})
	to_main := object.union(fx.call(fx.merge, []), {"call": {"args": {"base": "main"}}})
	decide(to_main, rules).code == "approval_required:github.merge_pull_request:pending"
	to_dev := object.union(fx.call(fx.merge, []), {"call": {"args": {"base": "dev"}}})
	decide(to_dev, rules).allowed == true

	# an argument left out for its size counts as matching: fails closed
	left_out := object.union(fx.call(fx.merge, []), {"call": {"args": {}, "omittedArgs": ["base"]}})
	decide(left_out, rules).code == "approval_required:github.merge_pull_request:pending"
}

test_the_reviewer_channel_never_needs_approval if {
	rules := rules_with({"workspace": {"tools": ["plangate_submit_plan"]}, "crews": {}, "agents": {}})
	held := object.union(fx.call("plangate_submit_plan", []), {"hold": {"id": "7", "kind": "on_demand", "task": null, "placedBy": "ops", "placedAt": fx.now, "plans": 0, "pushBacks": 0}})
	d := decide(held, rules)
	d.allowed == true
	not d.approval
}

test_the_explanation_carries_the_approval if {
	d := plangate.decision with input as gathered([]) with data.plangate.rules as smallest
	d.check == "approval"
	d.approval.request == "new-1"
}

test_possible_at_any_scope if {
	possible(smallest, fx.merge)
	not possible(smallest, "github.get_pull_request")
	possible(rules_with({"crews": {"elsewhere": {"tools": [fx.merge]}}, "agents": {}}), fx.merge)
	possible(rules_with({"crews": {}, "agents": {"0xWORKER": {"classes": ["effect"]}}}), fx.merge)
	not possible(base_rules, fx.merge)
}

possible(rules, tool) if {
	plangate.approval_possible with input as {"agent": {"id": "0xWORKER"}, "call": {"tool": tool}} with data.plangate.rules as rules
}

allowed_to_approve(principal, approvers) if {
	plangate.approver_allowed with input as {"principal": principal, "request": {"approvers": approvers}}
}

test_who_may_approve if {
	roles := {"roles": ["approver"], "names": ["ops-alice"]}
	allowed_to_approve({"role": "operator", "name": "operator"}, {"roles": [], "names": []})
	allowed_to_approve({"role": "approver", "name": "approver"}, roles)
	allowed_to_approve({"role": "reviewer", "name": "ops-alice"}, roles)
	not allowed_to_approve({"role": "reviewer", "name": "reviewer"}, roles)

	# an agent never approves, even when the rule names its role or its name
	not allowed_to_approve({"role": "agent", "name": "agent:0xWORKER"}, {"roles": ["agent"], "names": ["agent:0xWORKER"]})
}

client_rule := rules_with({"workspace": {"tools": [fx.merge], "approvers": {"client": true}}, "crews": {}, "agents": {}})

test_the_client_may_answer_only_where_the_rule_opts_in if {
	# by default a separate approver is required
	not decide(gathered([]), smallest).approval.atClient
	decide(gathered([]), smallest).approval.atClient == false

	# opted in: a new request, a pending one, and the new request after an expired or used approval
	d := decide(gathered([]), client_rule)
	d.approval.atClient == true
	d.approval.approvers == {"roles": ["approver"], "names": []}
	decide(gathered([record("r1", "pending", {})]), client_rule).approval.atClient == true
	decide(gathered([record("r1", "granted", {"expiresAt": fx.now})]), client_rule).approval.atClient == true
	decide(gathered([record("r1", "used", {"expiresAt": fx.now + 1})]), client_rule).approval.atClient == true

	# never for a denial, which stands, nor for a granted call
	decide(gathered([record("r1", "denied", {})]), client_rule).approval.atClient == false
	decide(gathered([record("r1", "granted", {"expiresAt": fx.now + 1})]), client_rule).approval.atClient == false

	# only the value true opts in
	loose := rules_with({"workspace": {"tools": [fx.merge], "approvers": {"client": "true", "roles": ["lead"]}}, "crews": {}, "agents": {}})
	l := decide(gathered([]), loose)
	l.approval.atClient == false
	l.approval.approvers == {"roles": ["lead"], "names": []}
}

listing(tools) := rules_with({"workspace": {"tools": tools}, "crews": {}, "agents": {}})

test_patterns_match_as_globs_and_plain_names_only_themselves if {
	# a pattern whose literal prefix starts the name, with * or ?
	decide(fx.call(fx.merge, []), listing(["github.*"])).check == "approval"
	decide(fx.call(fx.merge, []), listing(["github.merge_pull_reques?"])).check == "approval"
	decide(fx.call(fx.merge, []), listing(["*.merge_pull_request"])).check == "approval"

	# a prefix that fits but a glob that does not; a prefix that does not fit
	decide(fx.call(fx.merge, []), listing(["github.merge_*.v2"])).allowed == true
	decide(fx.call(fx.merge, []), listing(["deploy.*"])).allowed == true

	# a plain name is not a prefix, and a malformed pattern never matches
	decide(fx.call(fx.merge, []), listing(["github.merge"])).allowed == true
	decide(fx.call(fx.merge, []), listing(["github.[m]*"])).allowed == true
}
