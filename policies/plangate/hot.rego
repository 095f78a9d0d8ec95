# METADATA
# title: The hot answer
# description: |
#   What a gate acts on for one call: allowed, the deciding check, its code,
#   reason and message, shadow, the plan that counted, the settings in force,
#   the fact the host must still gather (needs), whether the call is to the
#   reviewer channel, the read guard's verdict when it refused (for the
#   audit), and what the record says about the claimed run and delegation
#   chain (a host may refuse an unrecorded claim). The same
#   rules as the explanation (plangate.compose.answer), without computing
#   the candidates and the checks' verdicts.
package plangate.hot

import data.plangate.compose
import data.plangate.plan_required
import data.plangate.read_guard

channel_part := {"channelCall": true} if compose.channel_call

else := {}

guard_part := {"readGuard": read_guard.verdict} if compose.deciding == "read_guard"

else := {}

decide := object.union(
	object.union(compose.answer, compose.needs_part),
	object.union(object.union(channel_part, guard_part), plan_required.trust_part),
)
