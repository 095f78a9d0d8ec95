# METADATA
# title: plangate entrypoints
# description: |
#   decision: the answer for one call (input: now, call, agent, upstream, messages,
#   and optionally delegations, run, hold and file); the checks compose as
#   plangate.compose says, and claimed runs and delegations count only as far
#   as plangate.trust finds them on record.
#   effective: the plan-required settings in force for one seat (input: agent).
#   planning_settings: the planning-gate settings in force for one seat (input: agent).
#   hold_allowed: whether a hold may be placed (input: agent, kind, hold).
package plangate

import data.plangate.compose
import data.plangate.planning
import data.plangate.settings

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
