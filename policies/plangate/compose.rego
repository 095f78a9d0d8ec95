# METADATA
# title: How the checks compose
# description: |
#   Three checks, in this order: the read guard, then the planning hold, then
#   plan-required. The first that refuses decides the call: its code and
#   message are the decision's, and `check` names it. `checks` reports every
#   check's own verdict, so a refusal also shows what the later checks would
#   have said. The reviewer channel is how a plan is sent, so plan-required
#   never refuses it (sending a plan never needs a plan).
package plangate.compose

import data.plangate.hold
import data.plangate.plan_required
import data.plangate.plans
import data.plangate.read_guard

order := ["read_guard", "planning_hold", "plan_required"]

default channel_call := false

channel_call if input.call.tool == hold.channel

default pr_refused := false

pr_refused if {
	plan_required.allowed == false
	not channel_call
}

pr_verdict := object.union({"allowed": plan_required.allowed, "gated": plan_required.gated}, pr_detail)

pr_detail := {"code": plan_required.code} if {
	pr_refused
} else := {"exempt": "reviewer_channel"} if {
	plan_required.allowed == false
	channel_call
} else := {}

checks := {
	"readGuard": read_guard.verdict,
	"planningHold": object.union(hold.verdict, {"channelCall": channel_call}),
	"planRequired": pr_verdict,
}

# deciding is the first check in `order` that refuses, if any.
deciding := "read_guard" if {
	read_guard.refused
} else := "planning_hold" if {
	hold.refused
} else := "plan_required" if {
	pr_refused
}

refusal := {"code": read_guard.code, "message": read_guard.message} if deciding == "read_guard"

refusal := {"code": hold.code, "message": hold.message} if deciding == "planning_hold"

needs_part := {"needs": read_guard.needs} if read_guard.needs

else := {}

# answer: the decision's fields, what both entrypoints answer: plan-required's
# base fields and what the deciding check adds (each small part merged first,
# the base once). A refusal's message is built only for the check that decides.
answer := object.union(plan_required.base, answer_extra)

answer_extra := object.union(plan_required.plan_part, object.union(refusal, {"allowed": false, "check": deciding})) if {
	refusal
} else := object.union(plan_required.refusal, {"check": deciding}) if {
	deciding == "plan_required"
} else := plan_required.extra if {
	plan_required.allowed == true
} else := object.union(plan_required.plan_part, {"allowed": true})

# detail: what only an explanation carries.
detail := object.union({"checks": checks, "candidates": plans.candidates}, plan_required.trust_part)

decision := object.union(answer, object.union(needs_part, detail))
