# METADATA
# title: How the checks compose
# description: |
#   Five checks, in this order: the tool's pin (a pinned MCP tool whose
#   definition changed), the read guard, then the planning hold, then
#   plan-required, then the human gate (approvals): a call refused for a
#   missing plan is refused before any approval is asked for. The first that
#   refuses decides the call: its code and
#   message are the decision's, and `check` names it. `checks` reports every
#   check's own verdict, so a refusal also shows what the later checks would
#   have said. The reviewer channel is how a plan is sent, so plan-required
#   never refuses it (sending a plan never needs a plan).
package plangate.compose

import data.plangate.approval
import data.plangate.classify
import data.plangate.hold
import data.plangate.pins
import data.plangate.plan_required
import data.plangate.planning
import data.plangate.plans
import data.plangate.read_guard
import data.plangate.settings
import data.plangate.trust

order := ["tool_pin", "read_guard", "planning_hold", "plan_required", "approval"]

# channel_call: the call is to the reviewer channel in force for the seat.
# Only a tool named as a reviewer channel somewhere in the rules needs the
# seat's planning profile to tell.
default channel_call := false

channel_call if {
	planning.channel_name(input.call.tool)
	input.call.tool == hold.channel
}

default pr_refused := false

pr_refused if {
	plan_required.allowed == false
	not channel_call
}

pr_verdict := object.union({"allowed": plan_required.allowed, "gated": plan_required.gated}, pr_detail)

pr_detail := {"code": plan_required.code} if {
	pr_refused
} else := {"exempt": "reviewer_channel"} if {
	plan_required.would_refuse
	channel_call
} else := {}

checks := {
	"toolPin": pins.verdict,
	"readGuard": read_guard.verdict,
	"planningHold": object.union(hold.verdict, {"channelCall": channel_call}),
	"planRequired": pr_verdict,
}

# deciding is the first check in `order` that refuses, "" when none does.
# It, the code and the message have a value for every call: a rule without
# one is worked out again wherever it is referenced, a rule with one once
# per decision.
deciding := "tool_pin" if {
	pins.refused
} else := "read_guard" if {
	read_guard.refused
} else := "planning_hold" if {
	hold.refused
} else := "plan_required" if {
	plan_required.allowed == false
	not channel_call
} else := "approval" if {
	approval.refused
	not channel_call
} else := ""

# The refusal of the deciding check; with none, plan-required's would-be
# refusal in shadow mode; else "". Its message is built only for the check
# that decides, and is "" when it cannot be built (see complete).
code := pins.code if {
	deciding == "tool_pin"
} else := read_guard.code if {
	deciding == "read_guard"
} else := hold.code if {
	deciding == "planning_hold"
} else := plan_required.code if {
	deciding == "plan_required"
} else := approval.code if {
	deciding == "approval"
} else := plan_required.code if {
	shadow
} else := ""

message := m if {
	deciding == "tool_pin"
	m := pins.message
} else := m if {
	deciding == "read_guard"
	m := read_guard.message
} else := m if {
	deciding == "planning_hold"
	m := hold.message
} else := m if {
	deciding == "approval"
	m := approval.message
} else := m if {
	code == plan_required.code
	m := plan_required.message
} else := ""

# A shadow rule reports only what enforcing it would refuse: never a call
# to the reviewer channel, which plan-required does not refuse.
default shadow := false

shadow if {
	deciding == ""
	plan_required.shadow
	not channel_call
}

# answer: the hot answer (plangate.decide), the decision's fields and what only
# a gate acts on, each field defined on its own so that no part is built
# and merged unless the answer has it. The call's tool and seat, and whether
# the seat is on record, are the host's own facts: the hot answer does not
# repeat them (a gate has them), the explanation does.
answer["allowed"] := deciding == ""

answer["class"] := classify.class

answer["gated"] := plan_required.gated

answer["settings"] := settings.values

answer["check"] := deciding if deciding != ""

answer["code"] := code if code != ""

answer["message"] := message if message != ""

answer["reason"] := plan_required.reason if code == plan_required.code

answer["shadow"] if shadow

# The plan that counted (none when plan-required refuses or would refuse:
# then no plan counts).
answer["plan"] := plans.plan

answer["needs"] := read_guard.needs

answer["run"] := trust.run_verdict

# The approval the call needs, asked only once the checks in front of it let
# the call through (never for the reviewer channel).
answer["approval"] := approval.verdict if {
	approval.needed
	deciding in {"", "approval"}
	not channel_call
}

answer["delegation"] := trust.delegation if count(trust.claimed) > 0

# Only a gate acts on these: whether the call is to the reviewer channel, a
# held agent's reviewer channel (the host keeps it, to keep the channel open
# if the store fails while the agent is held), and the read guard's verdict
# when it refused, and the pin's verdict when it refused (both for the audit).
gate_only := ["channelCall", "reviewerChannel", "readGuard", "toolPin"]

answer["channelCall"] if channel_call

answer["reviewerChannel"] := hold.channel if hold.held

answer["readGuard"] := read_guard.verdict if deciding == "read_guard"

answer["toolPin"] := pins.verdict if deciding == "tool_pin"

# complete: every field an answer must have is defined. An input so damaged
# that one is not gets no answer at all, never one with fields missing.
complete if {
	_ = input.call.tool
	_ = answer.class
	_ = input.agent.id
	_ = answer.settings
	not message_missing
}

message_missing if {
	answer.code
	not answer.message
}

# decision: the explanation, the decision's fields with the settings
# described (each with its scope and source), every candidate and every
# check's verdict.
decision := object.union(object.remove(answer, gate_only), {
	"tool": input.call.tool,
	"agent": input.agent.id,
	"agentKnown": object.get(input.agent, "known", false) == true,
	"settings": settings.in_force,
	"checks": checks,
	"candidates": plans.candidates,
}) if complete

# settled: what the approvals on record decide, for a call whose first
# answer asked for them (its approval verdict not gathered: the checks in
# front of the human gate let it through, and it is not to the reviewer
# channel). Evaluated on the same input with input.approval, it gives only
# the fields of the answer that the approvals can change: the verdict, and
# either the refusal (check, code, message) or, once granted, whatever the
# answer then says (plan-required's would-be refusal in shadow mode); the
# host sets them over the first answer, whose other fields the approvals do
# not touch. The same rules as answer, without evaluating the checks in
# front again.
settled["approval"] := approval.verdict

settled["allowed"] := false if approval.refused

settled["allowed"] if not approval.refused

settled["check"] := "approval" if approval.refused

settled["code"] := approval.code if approval.refused

settled["message"] := approval.message if approval.refused

settled["shadow"] if granted_shadow

settled["code"] := plan_required.code if granted_shadow

settled["reason"] := plan_required.reason if granted_shadow

settled["message"] := plan_required.message if granted_shadow

# granted_shadow: allowed once approved, while plan-required would refuse
# under a rule that does not enforce (the setting asked first: it is the
# cheaper fact, and a rule that enforces settles it).
granted_shadow if {
	not approval.refused
	settings.values.enforce == false
	plan_required.shadow
}
