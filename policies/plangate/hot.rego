# METADATA
# title: The hot answer
# description: |
#   What a gate acts on for one call: allowed, the deciding check, its code,
#   reason and message, shadow, the plan that counted, the settings in force,
#   the fact the host must still gather (needs), whether the call is to the
#   reviewer channel, and the read guard's verdict when it refused (for the audit). The same
#   rules as the explanation (plangate.compose.answer), without computing
#   the candidates, the checks' verdicts and the verdicts on the claimed run
#   and delegation.
package plangate.hot

import data.plangate.compose
import data.plangate.read_guard

channel_part := {"channelCall": true} if compose.channel_call

else := {}

guard_part := {"readGuard": read_guard.verdict} if compose.deciding == "read_guard"

else := {}

decide := object.union(compose.answer, object.union(compose.needs_part, object.union(channel_part, guard_part)))
