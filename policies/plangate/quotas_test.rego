package plangate.quotas_test

import data.plangate
import data.plangate.quotas as quota

now := 1000000000000

ask(kind, counts) := {"kind": kind, "seat": "0xW", "now": now, "counts": counts}

test_limits_without_counts_are_the_defaults if {
	v := quota.verdict with input as {"kind": "messages", "seat": "0xW", "now": now} with data.plangate.rules as {}
	v == {"allowed": true, "limits": {"kind": "messages", "rate": 600, "windowMin": 60, "standing": 50000}}
	every kind in ["delegations", "runs", "holdPlans", "approvalRequests"] {
		quota.verdict.allowed with input as {"kind": kind} with data.plangate.rules as {}
	}
}

test_unknown_kind_has_no_answer if {
	not quota.verdict with input as {"kind": "everything"} with data.plangate.rules as {}
	not quota.verdict with input as {"kind": 7} with data.plangate.rules as {}
}

rules := {"quotas": {"messages": {"rate": 3, "source": "q.yaml:2:3"}, "runs": {"windowMin": 10, "standing": 2, "rate": 0, "source": "q.yaml:4:3"}}}

test_a_rule_sets_some_fields_the_rest_default if {
	v := quota.verdict with input as {"kind": "messages"} with data.plangate.rules as rules
	v.limits == {"kind": "messages", "rate": 3, "windowMin": 60, "standing": 50000, "source": "q.yaml:2:3"}
	w := quota.verdict with input as {"kind": "delegations"} with data.plangate.rules as rules
	w.limits == {"kind": "delegations", "rate": 120, "windowMin": 60, "standing": 5000}
}

test_under_quota_is_allowed if {
	v := quota.verdict with input as ask("messages", {"recent": 2, "standing": 10}) with data.plangate.rules as rules
	v.allowed
}

test_rate_refuses_with_retry_after if {
	edge := now - (59 * 60000)
	v := quota.verdict with input as ask("messages", {"recent": 4, "standing": 10, "edge": edge}) with data.plangate.rules as rules
	not v.allowed
	v.code == "quota:messages:rate"
	v.limit == "rate"
	v.retryAfterSec == 60
	startswith(v.message, "quota:messages:rate - 0xW has sent 4 messages in the last 60 minutes; its quota is 3 (quotas.messages.rate, the rule at q.yaml:2:3). Retry in 60 s")
}

test_retry_after_is_at_least_a_second_and_a_window_without_edge if {
	v := quota.verdict with input as ask("messages", {"recent": 3, "standing": 0, "edge": now - (61 * 60000)}) with data.plangate.rules as rules
	v.retryAfterSec == 1
	w := quota.verdict with input as ask("messages", {"recent": 3, "standing": 0}) with data.plangate.rules as rules
	w.retryAfterSec == 3600
}

test_standing_refuses_first_without_retry_after if {
	v := quota.verdict with input as ask("runs", {"recent": 5, "standing": 2}) with data.plangate.rules as rules
	v.code == "quota:runs:standing"
	not v.retryAfterSec
	contains(v.message, "0xW keeps 2 runs in the store; its quota is 2 (quotas.runs.standing, the rule at q.yaml:4:3)")
}

test_a_zero_rate_refuses_every_write if {
	v := quota.verdict with input as ask("runs", {"recent": 0, "standing": 0}) with data.plangate.rules as rules
	v.code == "quota:runs:rate"
	v.retryAfterSec == 600
}

test_default_source_is_named if {
	v := quota.verdict with input as ask("holdPlans", {"recent": 0, "standing": 100}) with data.plangate.rules as {}
	contains(v.message, "plans to the reviewer in the store; its quota is 100 (quotas.holdPlans.standing, the built-in default)")
}

test_a_rule_that_is_not_a_map_is_ignored if {
	v := quota.verdict with input as {"kind": "messages"} with data.plangate.rules as {"quotas": {"messages": 5}}
	v.limits.rate == 600
}

test_the_entrypoint_is_the_verdict if {
	v := plangate.quota with input as ask("messages", {"recent": 0, "standing": 0}) with data.plangate.rules as {}
	v.allowed
}
