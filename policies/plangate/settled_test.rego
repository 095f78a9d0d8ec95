package plangate.settled_test

import data.plangate
import data.plangate.approval_test as ax
import data.plangate.fixtures_test as fx

# The fields of the answer the approvals on record decide (core/decision.ts SETTLED_FIELDS).
fields := ["allowed", "check", "code", "message", "reason", "shadow", "approval"]

approvals := {"workspace": {"tools": [fx.merge], "source": "a.yaml:1:13"}, "crews": {}, "agents": {}}

# Plan-required in side_effects mode without enforcing: a merge with no plan is a would-be refusal.
shadow_rules := object.union(
	fx.rules_with({"mode": "side_effects", "windowMin": 30, "enforce": false, "source": "w.yaml:1:1"}, {}, {}),
	{"approvals": approvals},
)

enforcing_rules := object.union(fx.side_effects, {"approvals": approvals})

crew_rules := object.union(fx.workspace_rules("off"), {"approvals": {
	"workspace": {"tools": []},
	"crews": {"news": {"tools": ["github.*"], "windowMin": 5, "approvers": {"names": ["ops-alice"], "client": true}}},
	"agents": {},
}})

soon := fx.now + fx.minute

records := {
	"none": [],
	"pending": [ax.record("r1", "pending", {})],
	"granted": [ax.record("r1", "granted", {"expiresAt": soon})],
	"expired": [ax.record("r1", "granted", {"expiresAt": fx.now})],
	"used": [ax.record("r1", "used", {"expiresAt": soon})],
	"denied": [ax.record("r1", "denied", {})],
	"used then granted": [ax.record("r2", "granted", {"expiresAt": soon}), ax.record("r1", "used", {"expiresAt": soon})],
}

with_plan(inp) := object.union(inp, {"messages": [fx.plan("m1", fx.minute)]})

# agrees: on the same input, approval_settled gives exactly the fields decide gives for them.
agrees(inp, rules) if {
	d := plangate.decide with input as inp with data.plangate.rules as rules
	s := plangate.approval_settled with input as inp with data.plangate.rules as rules
	every f in fields {
		object.get(d, f, "(absent)") == object.get(s, f, "(absent)")
	}
	every f, _ in s {
		f in fields
	}
}

test_settled_agrees_with_decide_for_every_record_and_rule if {
	every _, rs in records {
		agrees(ax.gathered(rs), ax.smallest)
		agrees(ax.gathered(rs), shadow_rules)
		agrees(with_plan(ax.gathered(rs)), shadow_rules)
		agrees(with_plan(ax.gathered(rs)), enforcing_rules)
		agrees(ax.gathered(rs), crew_rules)
	}
}

test_a_granted_call_under_a_shadow_rule_is_answered_with_its_would_be_refusal if {
	s := plangate.approval_settled with input as ax.gathered(records.granted) with data.plangate.rules as shadow_rules
	s.allowed == true
	s.shadow == true
	s.code == "plan_required:github.merge_pull_request:none"
	s.reason == "none"
	startswith(s.message, "plan_required:github.merge_pull_request:none - ")
	not s.check
	s.approval.status == "granted"
}

test_a_refused_call_under_a_shadow_rule_is_refused_for_approval if {
	s := plangate.approval_settled with input as ax.gathered(records.pending) with data.plangate.rules as shadow_rules
	s.allowed == false
	s.check == "approval"
	s.code == "approval_required:github.merge_pull_request:pending"
	not s.shadow
	not s.reason
}

test_a_granted_call_with_a_plan_has_no_refusal_left if {
	s := plangate.approval_settled with input as with_plan(ax.gathered(records.granted)) with data.plangate.rules as enforcing_rules
	s == {"allowed": true, "approval": s.approval}
	s.approval.request == "r1"
}

test_a_call_that_needs_no_approval_has_nothing_settled if {
	inp := object.union(ax.gathered([]), {"call": {"agent": "0xWORKER", "tool": "github.create_issue", "delegatedBy": []}})
	not plangate.approval_settled with input as inp with data.plangate.rules as ax.smallest
}
