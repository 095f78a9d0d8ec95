package plangate.classify_test

import data.plangate.classify

tools(default_class, exact, patterns) := {"tools": {"default": default_class, "exact": exact, "patterns": patterns}}

pattern(p, class) := {"pattern": p, "class": class, "source": "rules/tools.yaml:1:1"}

github := tools(
	"effect",
	{"github.merge_pull_request": "read"},
	[
		pattern("github.*", "spend"),
		pattern("github.get_*", "read"),
		pattern("github.get_?", "say"),
		pattern("db.q?", "read"),
	],
)

test_exact_name_beats_any_pattern if {
	# github.* (spend) matches too, but the exact name says read.
	classify.class_of("github.merge_pull_request") == "read" with data.plangate.rules as github
}

test_exact_name_beats_more_specific_pattern if {
	rules := tools("effect", {"github.get_x": "spend"}, [pattern("github.get_?", "say")])
	classify.class_of("github.get_x") == "spend" with data.plangate.rules as rules
}

test_most_specific_pattern_wins if {
	classify.class_of("github.get_issue") == "read" with data.plangate.rules as github
	classify.class_of("github.close_issue") == "spend" with data.plangate.rules as github
}

test_most_specific_pattern_wins_whatever_the_order if {
	rules := tools("effect", {}, [pattern("github.get_*", "read"), pattern("github.*", "spend")])
	classify.class_of("github.get_issue") == "read" with data.plangate.rules as rules
}

test_question_mark_counts_as_wildcard_not_literal if {
	# github.get_? has 11 literal characters, github.get_* too: a tie, read wins over say.
	classify.class_of("github.get_x") == "read" with data.plangate.rules as github
}

test_star_crosses_dots if {
	classify.class_of("github.repos.pulls.merge") == "spend" with data.plangate.rules as github
	rules := tools("effect", {}, [pattern("*", "read")])
	classify.class_of("a.b.c") == "read" with data.plangate.rules as rules
}

test_star_matches_empty_run if {
	classify.class_of("github.") == "spend" with data.plangate.rules as github
}

test_question_mark_is_exactly_one_character if {
	classify.class_of("db.q1") == "read" with data.plangate.rules as github
	classify.class_of("db.q.") == "read" with data.plangate.rules as github
	classify.class_of("db.q12") == "effect" with data.plangate.rules as github
	classify.class_of("db.q") == "effect" with data.plangate.rules as github
}

test_pattern_must_match_whole_name if {
	classify.class_of("xgithub.merge") == "effect" with data.plangate.rules as github
	rules := tools("read", {}, [pattern("deploy", "spend")])
	classify.class_of("deploy.now") == "read" with data.plangate.rules as rules
}

# Two patterns of equal specificity, "a.*" and "*.b", both match "a.b".
tie(c1, c2) := class if {
	class := classify.class_of("a.b") with data.plangate.rules as tools("effect", {}, [pattern("a.*", c1), pattern("*.b", c2)])
}

test_ties_go_to_the_stricter_class if {
	tie("effect", "spend") == "spend"
	tie("spend", "effect") == "spend"
	tie("read", "effect") == "effect"
	tie("effect", "read") == "effect"
	tie("say", "read") == "read"
	tie("read", "say") == "read"
	tie("say", "spend") == "spend"
	tie("say", "say") == "say"
}

test_tie_rank_order if {
	classify.rank == {"say": 0, "read": 1, "effect": 2, "spend": 3}
}

test_specificity_counts_literal_characters if {
	classify.specificity("github.*") == 7
	classify.specificity("github.get_*") == 11
	classify.specificity("a?c*") == 2
	classify.specificity("*") == 0
}

test_unmatched_tool_takes_the_rules_default_class if {
	classify.class_of("slack.read_channel") == "effect" with data.plangate.rules as github
	rules := tools("read", {}, [pattern("github.*", "spend")])
	classify.class_of("slack.read_channel") == "read" with data.plangate.rules as rules
}

test_default_class_is_effect_when_rules_set_none if {
	rules := {"tools": {"exact": {"a": "read"}, "patterns": [pattern("b.*", "say")]}}
	classify.class_of("c") == "effect" with data.plangate.rules as rules
	classify.class_of("a") == "read" with data.plangate.rules as rules
	classify.class_of("b.x") == "say" with data.plangate.rules as rules
}

test_tools_without_exact_or_patterns if {
	classify.class_of("anything") == "say" with data.plangate.rules as {"tools": {"default": "say"}}
}

test_rules_without_tools if {
	classify.class_of("anything") == "effect" with data.plangate.rules as {"planRequired": {}}
}

test_no_rules_data_at_all if {
	# No `with`: the tests load no data, so data.plangate.rules is undefined.
	classify.default_class == "effect"
	classify.class_of("github.merge_pull_request") == "effect"
	classify.class_of("github.get_pull_request") == "effect"
}

test_pattern_with_glob_syntax_never_matches if {
	rules := {"tools": {"default": "say", "exact": {}, "patterns": [
		{"pattern": "[a].b", "class": "read", "source": "t:1:1"},
		{"pattern": "{a,q}.b", "class": "read", "source": "t:2:1"},
		{"pattern": "a\\.b", "class": "read", "source": "t:3:1"},
	]}}
	classify.class_of("a.b") == "say" with data.plangate.rules as rules
}

test_literal_prefix_is_the_text_before_the_first_wildcard if {
	classify.literal_prefix("github.get_*") == "github.get_"
	classify.literal_prefix("social.publish_?x*") == "social.publish_"
	classify.literal_prefix("*.search") == ""
	classify.literal_prefix("fs.read") == "fs.read"
}

# --- patterns as the host indexes them (tools.match, src/core/patterns.ts)

entry(p, class, shape, prefix, suffix, literals) := {
	"pattern": p, "class": class, "shape": shape,
	"prefix": prefix, "suffix": suffix, "literals": literals,
}

indexed := {"tools": {
	"default": "effect",
	"exact": {},
	"patterns": [],
	"match": {"byFirst": {
		"g": [
			entry("github.*", "spend", "prefix", "github.", "", 7),
			entry("github.get_*", "read", "prefix", "github.get_", "", 11),
			entry("github.get_?", "say", "glob", "github.get_", "", 11),
		],
		"": [
			entry("*.search", "read", "suffix", "", ".search", 7),
			object.union(entry("*draft*", "say", "infix", "", "", 5), {"infix": "draft"}),
			entry("*", "effect", "prefix", "", "", 0),
		],
		"w": [entry("w[ab]*", "spend", "never", "w[ab]", "", 5)],
	}},
}}

class_of_indexed(tool) := c if {
	c := classify.class_of(tool) with data.plangate.rules as indexed
}

test_indexed_shapes_match_as_globs_do if {
	class_of_indexed("github.get_issue") == "read" # prefix, the most literal characters
	class_of_indexed("github.get_x") == "read" # prefix and glob tie on literals: read beats say
	class_of_indexed("github.close") == "spend" # prefix
	class_of_indexed("docs.search") == "read" # suffix
	class_of_indexed("post.draft.save") == "say" # infix beats the bare star
	class_of_indexed("deploy.run") == "effect" # only the bare star
	class_of_indexed("wa.run") == "effect" # a pattern of shape never matches nothing
}

test_indexed_shapes_never_match_a_name_with_a_space if {
	rules := {"tools": {"default": "read", "exact": {}, "patterns": [], "match": {"byFirst": {"": [
		entry("*", "spend", "prefix", "", "", 0),
		entry("*.x", "spend", "suffix", "", ".x", 2),
		object.union(entry("*b*", "spend", "infix", "", "", 1), {"infix": "b"}),
	]}}}}
	classify.class_of("a b.x") == "read" with data.plangate.rules as rules
	classify.class_of("ab.x") == "spend" with data.plangate.rules as rules
}

test_indexed_empty_tool_name_meets_the_prefixless_patterns_only if {
	class_of_indexed("") == "effect"
}

test_class_is_the_class_of_the_calls_tool if {
	classify.class == "read" with input as {"call": {"tool": "github.get_pr"}} with data.plangate.rules as indexed
}

# annotated: a call through the gateway from the upstream fs, with the tool's hints.
annotated(tool, hints) := {"call": {"tool": tool, "annotations": hints, "mcp": {"upstream": "fs", "tool": tool, "digest": "sha256:00"}}}

# trusting: the rules, trusting the fs upstream's annotations.
trusting(rules) := object.union(rules, {"mcp": {"trustAnnotations": ["fs"]}})

test_the_gateways_own_hints_classify if {
	classify.class_of("prompts/get") == "read" with data.plangate.rules as github
		with input as {"call": {"tool": "prompts/get", "annotations": {"readOnlyHint": true}, "mcp": {"upstream": "fs", "tool": "prompts/get", "own": true}}}
}

test_annotations_of_an_untrusted_upstream_do_not_classify if {
	# not trusted by default, nor when the rules trust another upstream, nor without the gateway's fact
	classify.class_of("list_directory") == "effect" with data.plangate.rules as github
		with input as annotated("list_directory", {"readOnlyHint": true})
	classify.class_of("list_directory") == "effect" with data.plangate.rules as object.union(github, {"mcp": {"trustAnnotations": ["other"]}})
		with input as annotated("list_directory", {"readOnlyHint": true})
	classify.class_of("list_directory") == "effect" with data.plangate.rules as trusting(github)
		with input as {"call": {"tool": "list_directory", "annotations": {"readOnlyHint": true}}}
}

test_annotations_classify_where_the_rules_are_silent if {
	classify.class_of("list_directory") == "read" with data.plangate.rules as trusting(github)
		with input as annotated("list_directory", {"readOnlyHint": true})
	classify.class_of("write_file") == "effect" with data.plangate.rules as trusting(github)
		with input as annotated("write_file", {"readOnlyHint": false, "destructiveHint": true})
}

test_a_destructive_hint_beats_a_contradicting_read_only_hint if {
	classify.class_of("wipe") == "effect" with data.plangate.rules as trusting(tools("read", {}, []))
		with input as annotated("wipe", {"readOnlyHint": true, "destructiveHint": true})
}

test_no_hint_falls_to_the_default_class if {
	classify.class_of("create_directory") == "effect" with data.plangate.rules as github
		with input as annotated("create_directory", {"destructiveHint": false})
	classify.class_of("create_directory") == "read" with data.plangate.rules as tools("read", {}, [])
		with input as annotated("create_directory", {})
}

test_the_rules_beat_annotations if {
	# an exact name and a pattern both outrank a read-only hint
	classify.class_of("github.merge_pull_request") == "read" with data.plangate.rules as github
		with input as annotated("github.merge_pull_request", {"destructiveHint": true})
	classify.class_of("github.close_issue") == "spend" with data.plangate.rules as github
		with input as annotated("github.close_issue", {"readOnlyHint": true})
}

test_annotations_of_another_tool_do_not_apply if {
	classify.class_of("write_file") == "effect" with data.plangate.rules as github
		with input as annotated("read_text_file", {"readOnlyHint": true})
}
