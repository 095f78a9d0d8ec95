# METADATA
# title: plangate entrypoints
# description: |
#   decision: the answer for one call (input: now, call, agent, upstream, messages).
#   effective: the plan-required settings in force for one seat (input: agent).
package plangate

import data.plangate.plan_required
import data.plangate.settings

# METADATA
# entrypoint: true
decision := plan_required.result

# METADATA
# entrypoint: true
effective := settings.effective(input.agent)
