# METADATA
# title: Tool classification
# description: |
#   A tool's class comes from the rules: an exact name first, then the most
#   specific matching pattern, then the tool's MCP annotations (advisory:
#   destructiveHint → effect, readOnlyHint → read) where the rules trust its
#   upstream for that (plangate.pins.annotations_trusted), then the rules'
#   default class (effect unless the rules say otherwise).
package plangate.classify

import data.plangate.pins

# Ties between equally specific patterns go to the stricter class.
rank := {"say": 0, "read": 1, "effect": 2, "spend": 3}

# The rules are read by direct reference (data.plangate.rules.tools.…),
# never bound whole to a value: a lookup reads only what it names.
default default_class := "effect"

default_class := data.plangate.rules.tools.default

# specificity counts a pattern's literal characters: "github.get_*" beats "github.*".
specificity(pattern) := count(replace(replace(pattern, "*", ""), "?", ""))

# `*` matches any run of characters, dots included; `?` exactly one. The
# glob.match under the WASM capabilities takes no null "no delimiter" form,
# so the delimiter is a space, which tool names cannot contain.
no_delimiter := [" "]

# Only `*` and `?` are special. A pattern with any character a tool name
# cannot hold (glob classes, braces, escapes) never matches; the rules schema
# rejects such patterns, this keeps a hand-made data document honest too.
well_formed(pattern) if regex.match(`^[A-Za-z0-9_.:/@*?-]+$`, pattern)

# literal_prefix is the text before a pattern's first wildcard. Every match
# starts with it, so comparing it first spares glob.match (which compiles the
# pattern on each call) for patterns that cannot match (unindexed data only).
literal_prefix(pattern) := split(split(pattern, "*")[0], "?")[0]

# The host indexes the patterns when it normalizes the rules
# (tools.match, see src/core/patterns.ts): each with its shape, its literal
# prefix and suffix, and its number of literal characters, by the first
# character of its prefix. Only the patterns that can apply to a tool are
# looked at, and only a pattern of no simpler shape is glob-matched.
default indexed := false

indexed if data.plangate.rules.tools.match.byFirst

# applicable(tool): the patterns whose prefix can start the tool name.
applicable(tool) := array.concat(by_first(substring(tool, 0, 1)), by_first("")) if {
	indexed
	tool != ""
} else := by_first("") if {
	indexed
} else := [entry_of(p) | some p in data.plangate.rules.tools.patterns]

by_first(c) := entries if {
	entries := data.plangate.rules.tools.match.byFirst[c]
} else := []

# entry_of(p): an unindexed pattern as its glob, tested on its literal prefix first.
entry_of(p) := {"pattern": p.pattern, "class": p.class, "shape": "unindexed", "prefix": literal_prefix(p.pattern)}

# A tool name holds no space; the shapes below read `*` as glob.match does
# with a space as the delimiter, so a name with one matches no pattern.
spaced(tool) if contains(tool, " ")

pattern_matches(e, tool) if {
	e.shape == "prefix"
	startswith(tool, e.prefix)
	not spaced(tool)
}

pattern_matches(e, tool) if {
	e.shape == "suffix"
	endswith(tool, e.suffix)
	not spaced(tool)
}

pattern_matches(e, tool) if {
	e.shape == "infix"
	contains(tool, e.infix)
	not spaced(tool)
}

pattern_matches(e, tool) if {
	e.shape == "glob"
	startswith(tool, e.prefix)
	endswith(tool, e.suffix)
	glob.match(e.pattern, no_delimiter, tool)
}

pattern_matches(e, tool) if {
	e.shape == "unindexed"
	startswith(tool, e.prefix)
	well_formed(e.pattern)
	glob.match(e.pattern, no_delimiter, tool)
}

matching(tool) := [e | some e in applicable(tool); pattern_matches(e, tool)]

# literals(e): a pattern's literal characters (its specificity).
literals(e) := e.literals if is_number(e.literals)

else := specificity(e.pattern)

# One matching pattern (the usual case) is its class; among several, the
# most specific, then the strictest.
best_pattern_class(tool) := class if {
	found := matching(tool)
	count(found) == 1
	class := found[0].class
} else := class if {
	found := matching(tool)
	count(found) > 1
	top := max({literals(p) | some p in found})
	tied := {p.class | some p in found; literals(p) == top}
	strictest := max({rank[c] | some c in tied})
	some class in tied
	rank[class] == strictest
}

# class_of returns the class of a tool name.
class_of(tool) := class if {
	class := data.plangate.rules.tools.exact[tool]
} else := class if {
	class := best_pattern_class(tool)
} else := class if {
	class := annotation_class(tool)
} else := default_class

# annotation_class reads the hints the upstream MCP server gave the tool of
# the call being decided, where no rule names it and the rules trust that
# upstream's annotations. Hints are advisory: a destructive hint wins over a
# contradicting read-only one, and a tool without either falls to the
# default class.
annotation_class(tool) := "effect" if {
	tool == input.call.tool
	pins.annotations_trusted
	input.call.annotations.destructiveHint == true
} else := "read" if {
	tool == input.call.tool
	pins.annotations_trusted
	input.call.annotations.readOnlyHint == true
}

# class: the class of the call's tool, computed once per decision.
class := class_of(input.call.tool)
