# METADATA
# title: plangate entrypoints
# description: |
#   decide: the hot answer for one call, what a gate acts on.
#   decision: the explanation of one call (input: now, call, agent, upstream,
#   messages, and optionally delegations, run, hold and file): the same answer
#   with every candidate and every check's verdict; the checks compose as
#   plangate.compose says, and claimed runs and delegations count only as far
#   as plangate.trust finds them on record.
#   effective: the plan-required settings in force for one seat (input: agent).
#   planning_settings: the planning-gate settings in force for one seat (input: agent).
#   hold_allowed: whether a hold may be placed (input: agent, kind, hold).
#   quota: a seat's quota of one kind of write, and whether one more is over it
#   (input: kind, seat, now, counts; see plangate.quotas).
#   approval_possible: whether any approvals rule could need approval for a
#   call (input: agent.id, call), asked while the store fails.
#   approver_allowed: whether a principal may answer an approval request
#   (input: principal {role, name}, request {approvers}).
#   approval_settled: the fields of the hot answer the approvals on record
#   decide (input: decide's, with approval), asked once decide's first
#   answer needs them (see plangate.compose.settled); undefined for a call
#   that needs no approval.
package plangate

import data.plangate.approval
import data.plangate.compose
import data.plangate.planning
import data.plangate.quotas
import data.plangate.settings

# METADATA
# title: The hot answer
# description: |
#   What a gate acts on for one call: allowed, the tool's class, whether
#   plan-required gates it, the deciding check, its code,
#   reason and message, shadow, the plan that counted, the settings in force
#   as values (their scopes and sources are plangate.effective's, per seat),
#   the fact the host must still gather (needs), what the record says about
#   the claimed run and delegation chain (a host may refuse an unrecorded
#   claim), whether the call is to the reviewer channel, a held agent's
#   reviewer channel, and the read guard's verdict when it refused. The same
#   rules as the explanation (plangate.compose.answer), without computing the
#   candidates and the checks' verdicts. The call's tool and seat, and
#   whether the seat is on record, are not repeated: the gate has them.
# entrypoint: true
decide := compose.answer if compose.complete

# METADATA
# entrypoint: true
decision := compose.decision

# METADATA
# entrypoint: true
effective := settings.effective(input.agent)

# METADATA
# entrypoint: true
planning_settings := planning.effective(input.agent)

# METADATA
# entrypoint: true
hold_allowed := planning.hold_allowed

# METADATA
# entrypoint: true
quota := quotas.verdict

# METADATA
# entrypoint: true
approval_possible := approval.possible

# METADATA
# entrypoint: true
approver_allowed := approval.approver_allowed

# METADATA
# entrypoint: true
approval_settled := compose.settled if approval.needed
