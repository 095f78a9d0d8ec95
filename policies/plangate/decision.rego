# METADATA
# title: plangate entrypoints
# description: |
#   decide: the hot answer for one call, what a gate acts on (plangate.hot).
#   decision: the explanation of one call (input: now, call, agent, upstream,
#   messages, and optionally delegations, run, hold and file): the same answer
#   with every candidate and every check's verdict; the checks compose as
#   plangate.compose says, and claimed runs and delegations count only as far
#   as plangate.trust finds them on record.
#   effective: the plan-required settings in force for one seat (input: agent).
#   planning_settings: the planning-gate settings in force for one seat (input: agent).
#   hold_allowed: whether a hold may be placed (input: agent, kind, hold).
package plangate

import data.plangate.compose
import data.plangate.hot
import data.plangate.planning
import data.plangate.settings

# METADATA
# entrypoint: true
decide := hot.decide

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
