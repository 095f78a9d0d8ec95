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
package plangate.hot

import data.plangate.compose

decide := compose.answer if compose.complete
