# METADATA
# title: The hot answer
# description: |
#   What a gate acts on for one call: allowed, the deciding check, its code,
#   reason and message, shadow, the plan that counted, the settings in force,
#   the fact the host must still gather (needs), whether the call is to the
#   reviewer channel, a held agent's reviewer channel, the read guard's verdict when it refused (for the
#   audit), and what the record says about the claimed run and delegation
#   chain (a host may refuse an unrecorded claim). The same
#   rules as the explanation (plangate.compose.answer_extra), without computing
#   the candidates and the checks' verdicts.
package plangate.hot

import data.plangate.compose
import data.plangate.hold
import data.plangate.plan_required
import data.plangate.read_guard

channel_part := object.union({"channelCall": true}, held_part) if compose.channel_call

else := held_part

# held_part names a held agent's reviewer channel (the host keeps it, to
# keep the channel open if the store fails while the agent is held).
held_part := {"reviewerChannel": hold.channel} if hold.held

else := {}

guard_part := {"readGuard": read_guard.verdict} if compose.deciding == "read_guard"

else := {}

# The small parts are merged first, then the base fields once.
extras := object.union(
	object.union(compose.needs_part, channel_part),
	object.union(guard_part, plan_required.trust_part),
)

decide := object.union(plan_required.base, object.union(compose.answer_extra, extras))
