# METADATA
# title: The human gate (approvals)
# description: |
#   Some calls need a person's yes for that very call. The rule in force for
#   a seat is the narrowest approvals rule: its own, else the nearest crew's
#   up the chain, else the workspace's; a call needs approval when that rule
#   lists its tool (a name or a pattern) or its class, and every condition
#   the rule sets on the arguments holds. A recorded approval counts only for
#   the same seat, tool, run (or no run) and SHA-256 of the call's canonical
#   arguments (input.approval.digest, worked out by the host), only once it
#   is granted, and only until it expires; denied and used approvals never
#   count. The host gathers the seat's approvals of this exact call
#   (input.approval.records, newest first) only when a first answer says the
#   call needs one; without them the call is refused (fails closed).
package plangate.approval

import data.plangate.classify
import data.plangate.planning

default_window_min := 15

rules := data.plangate.rules.approvals

# crews_with_rules: the seat's crews that have an approvals rule, nearest first.
crews_with_rules := [c | some c in input.agent.crews; rules.crews[c]]

in_force := {"scope": "agent", "id": input.agent.id, "rule": rules.agents[input.agent.id]} if {
	rules.agents[input.agent.id]
} else := {"scope": "crew", "id": crews_with_rules[0], "rule": rules.crews[crews_with_rules[0]]} if {
	count(crews_with_rules) > 0
} else := {"scope": "workspace", "rule": rules.workspace}

default needed := false

needed if {
	listed(in_force.rule)
	conditions_hold(in_force.rule)
}

# listed(rule): the rule names the call's tool, a pattern it fits, or its
# class. A plain name is looked up; a pattern is glob-matched (compiled on
# each call) only when its literal prefix starts the tool name, so a call
# that needs no approval costs a few string comparisons.
listed(rule) if input.call.tool in rule.tools

listed(rule) if {
	some entry in rule.tools
	prefix := classify.literal_prefix(entry)
	prefix != entry
	startswith(input.call.tool, prefix)
	planning.matches(input.call.tool, [entry])
}

listed(rule) if classify.class in rule.classes

# conditions_hold(rule): every argument the rule names has the value it
# names. An argument the host left out for its size cannot be told apart
# from the value, so it counts as holding (the gate fails closed).
conditions_hold(rule) if not rule.when

conditions_hold(rule) if {
	every name, value in rule.when {
		argument_is(name, value)
	}
}

argument_is(name, value) if input.call.args[name] == value

argument_is(name, _) if name in input.call.omittedArgs

# The recorded approvals of this exact call: the same seat, tool, run and digest.
run_id := object.get(input.call, "runId", null)

matching := [r |
	some r in input.approval.records
	r.seat == input.agent.id
	r.tool == input.call.tool
	r.runId == run_id
	r.digest == input.approval.digest
]

usable := [r | some r in matching; r.status == "granted"; input.now < r.expiresAt]

# state: granted (a usable approval), or why none counts. The newest record
# tells: none yet, still pending, denied, expired (granted but too late), used.
state := "granted" if {
	count(usable) > 0
} else := "pending" if {
	count(matching) == 0
} else := "expired" if {
	matching[0].status == "granted"
} else := matching[0].status

refused if {
	needed
	state != "granted"
}

# open: the host records a new request (with input.approval.newId) when no
# record of this call is pending or denied. A denial stands: retrying the
# same call does not ask again.
default open := false

open if count(matching) == 0

open if matching[0].status in {"granted", "used"}

request := usable[0].id if {
	state == "granted"
} else := input.approval.newId if {
	open
} else := matching[0].id if {
	count(matching) > 0
} else := "(not recorded yet)"

code := concat(":", ["approval_required", input.call.tool, state])

# rule_approvers: who the rule in force says may approve, as written.
rule_approvers := object.get(in_force.rule, "approvers", {})

# approvers: who may answer at plangate's own desks (HTTP, console, CLI):
# the rule's roles and names, else the approver role.
approvers := {
	"roles": object.get(rule_approvers, "roles", ["approver"]),
	"names": object.get(rule_approvers, "names", []),
}

# at_client: whether the person at the seat's own MCP client may answer the
# request a refusal names, through MCP elicitation. The client is the
# agent's own host: a client the agent controls could answer its own form,
# so only a rule that opts in (approvers.client: true, set by an operator
# who knows the client is attended by a person) allows it; by default a
# separate approver is required. Only for a request that is open or
# pending: a denial stands, and a granted call needs no answer.
default at_client := false

at_client if {
	rule_approvers.client == true
	state in {"pending", "expired", "used"}
}

window_min := object.get(in_force.rule, "windowMin", default_window_min)

scope_phrase := "the workspace approvals rule" if {
	in_force.scope == "workspace"
} else := concat("", ["the ", in_force.scope, " approvals rule for ", in_force.id])

state_phrase("pending") := concat("", ["Request ", request, " is waiting for an approver."])

state_phrase("denied") := concat("", [
	"An approver denied request ", request,
	"; do not retry this call unchanged. Ask a person, or make a different call.",
])

state_phrase("expired") := concat("", [
	"The approval of request ", matching[0].id,
	" expired before it was used; request ", request, " is now waiting for an approver.",
])

state_phrase("used") := concat("", [
	"The approval of request ", matching[0].id,
	" was used by an earlier call; request ", request, " is now waiting for an approver.",
])

message := concat("", [
	code, " - ", input.call.tool, " needs a person's approval of this exact call (",
	scope_phrase, "). ", state_phrase(state), " Ask a person to approve request ", request,
	", then retry the same call with the same arguments; an approval is used by one call, ",
	"and any change to the arguments needs a new approval.",
])

# gathered: the host gathered the approvals on record for this call.
default gathered := false

gathered if is_string(input.approval.digest)

# verdict: what the answer says of the approval a call needs.
verdict := object.union(
	{
		"status": state,
		"request": request,
		"windowMin": window_min,
		"approvers": approvers,
		"scope": in_force.scope,
		"gathered": gathered,
		"atClient": at_client,
	},
	verdict_detail,
)

verdict_detail := {"open": true} if {
	open
	state != "granted"
} else := {}

# possible: whether any approvals rule, at any scope that could be the
# seat's, would need approval for this tool, conditions aside. What the host
# asks when the store fails and the seat's crews cannot be read: such a call
# is refused (fails closed).
default possible := false

possible if listed(rules.workspace)

possible if {
	some rule in rules.crews
	listed(rule)
}

possible if listed(rules.agents[input.agent.id])

# approver_allowed: whether a principal ({role, name}) may answer a request
# (its recorded approvers: roles and names). An operator always may; an
# agent never may, whatever the rule names, not even for another seat.
default approver_allowed := false

approver_allowed if input.principal.role == "operator"

approver_allowed if {
	input.principal.role != "agent"
	input.principal.role in input.request.approvers.roles
}

approver_allowed if {
	input.principal.role != "agent"
	input.principal.name in input.request.approvers.names
}
