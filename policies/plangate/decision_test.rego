package plangate.decision_test

import data.plangate
import data.plangate.fixtures_test as fx
import data.plangate.settings

minute := fx.minute

# Without a hold or a read-guarded read, plan-required alone decides.
test_without_a_hold_or_a_guarded_read_plan_required_decides if {
	every inp in [
		fx.call(fx.merge, []),
		fx.call(fx.merge, [fx.plan("m1", minute)]),
		fx.call(fx.merge, [fx.plan("m1", 45 * minute)]),
		fx.call("github.get_pull_request", []),
	] {
		d := plangate.decision with input as inp with data.plangate.rules as fx.side_effects
		d.checks.readGuard.refused == false
		d.checks.planningHold.refused == false
		d.allowed == d.checks.planRequired.allowed
		object.get(d, "check", "plan_required") == "plan_required"
	}
}

test_decision_refuses_then_allows_once_the_worker_plans if {
	refused := plangate.decision with input as fx.call(fx.merge, []) with data.plangate.rules as fx.side_effects
	refused.allowed == false
	refused.code == "plan_required:github.merge_pull_request:none"

	m := fx.plan("m1", 0)
	allowed := plangate.decision with input as fx.call(fx.merge, [m]) with data.plangate.rules as fx.side_effects
	allowed.allowed == true
	allowed.plan == object.union(m, {"via": "fresh"})
}

test_decision_for_a_delegated_worker if {
	mgr_plan := fx.plan_with("p", 3 * minute, {"author": "0xMGR", "thread": "org"})
	d := plangate.decision with input as fx.delegated(fx.spend, [mgr_plan]) with data.plangate.rules as fx.upstream_rules
	d.allowed == true
	d.class == "spend"
	d.plan.author == "0xMGR"
	d.settings.acceptUpstream == {"value": true, "scope": "agent", "id": "0xWORKER", "source": "rules/agents.yaml:4:5"}
	d.settings.windowMin.value == 10
}

test_effective_entrypoint if {
	e := plangate.effective with input as {"agent": fx.worker} with data.plangate.rules as fx.upstream_rules
	e == {
		"mode": {"value": "side_effects", "scope": "agent", "id": "0xWORKER", "source": "rules/agents.yaml:4:5"},
		"windowMin": {"value": 10, "scope": "agent", "id": "0xWORKER", "source": "rules/agents.yaml:4:5"},
		"acceptUpstream": {"value": true, "scope": "agent", "id": "0xWORKER", "source": "rules/agents.yaml:4:5"},
		"enforce": {"value": true, "scope": "default"},
	}
	e == settings.effective(fx.worker) with data.plangate.rules as fx.upstream_rules
}

test_effective_entrypoint_walks_the_seats_crews if {
	rules := fx.rules_with(
		{"mode": "spends_only", "windowMin": 60, "source": "ws.yaml:1:1"},
		{"news": {"mode": "side_effects", "windowMin": 20, "source": "news.yaml:1:1"}},
		{},
	)
	e := plangate.effective with input as {"agent": fx.worker} with data.plangate.rules as rules
	e.mode == {"value": "side_effects", "scope": "crew", "id": "news", "source": "news.yaml:1:1"}
	e.windowMin == {"value": 20, "scope": "crew", "id": "news", "source": "news.yaml:1:1"}
	e.acceptUpstream == {"value": false, "scope": "default"}
}

test_decision_settings_walk_the_agents_crews if {
	rules := fx.rules_with({"mode": "off", "source": "ws.yaml:1:1"}, {"news": {"mode": "spends_only", "source": "news.yaml:1:1"}}, {})
	d := plangate.decision with input as fx.call(fx.spend, []) with data.plangate.rules as rules
	d.gated == true
	d.allowed == false
	d.settings.mode.id == "news"
}

test_effective_entrypoint_for_an_unknown_seat_without_rules if {
	e := plangate.effective with input as {"agent": {"id": "0xNOBODY", "known": false, "crews": []}}
	e == {
		"mode": {"value": "off", "scope": "default"},
		"windowMin": {"value": 30, "scope": "default"},
		"acceptUpstream": {"value": false, "scope": "default"},
		"enforce": {"value": true, "scope": "default"},
	}
}

test_effective_entrypoint_needs_an_agent if {
	not plangate.effective with input as {}
}
