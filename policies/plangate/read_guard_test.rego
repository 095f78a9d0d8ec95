package plangate.read_guard_test

import data.plangate.gate_fixtures_test as gx
import data.plangate.read_guard

# check evaluates the read guard for the worker (ceiling 100 bytes via desk's profile).
check(tool, args, extra) := v if {
	v := read_guard.verdict with input as gx.call(tool, args, extra) with data.plangate.rules as gx.rules
}

message(tool, args, extra) := m if {
	m := read_guard.message with input as gx.call(tool, args, extra) with data.plangate.rules as gx.rules
}

big := gx.file("big.log", 5000)

test_whole_file_read_over_the_ceiling_is_refused if {
	v := check(gx.read_file, {"path": "big.log"}, big)
	v == {
		"status": "over", "applies": true, "refused": true, "maxBytes": 100, "path": "big.log",
		"files": [{"path": "big.log", "kind": "file", "size": 5000}],
	}
	read_guard.code == "read_guard:fs.read_file" with input as gx.call(gx.read_file, {"path": "big.log"}, big)
}

test_at_or_under_the_ceiling_passes if {
	check(gx.read_file, {"path": "big.log"}, gx.file("big.log", 100)).status == "under"
	check(gx.read_file, {"path": "big.log"}, gx.file("big.log", 0)).refused == false
}

test_a_range_makes_it_a_partial_read if {
	every args in [{"path": "big.log", "offset": 1}, {"path": "big.log", "limit": 10}, {"path": "big.log", "offset": 0, "limit": 10}] {
		v := check(gx.read_file, args, big)
		v.status == "ranged"
		v.refused == false
		v.applies == false
	}

	# a range argument set to null is not given
	check(gx.read_file, {"path": "big.log", "offset": null}, big).status == "over"
}

test_a_range_that_asks_for_no_part_is_a_whole_file_read if {
	# zero, false, "", arrays, objects, fractions and counts above the ceiling take in the whole file
	every v in [0, false, "", [], {}, 2.5, -3, 100000000] {
		check(gx.read_file, {"path": "big.log", "limit": v}, big).status == "over"
	}
	fs_check("read_text_file", {"path": "big.log", "head": 0}, big).status == "over"
	fs_check("read_text_file", {"path": "big.log", "head": 2.5}, big).status == "over"
	fs_check("read_text_file", {"path": "big.log", "head": 100000000}, big).status == "over"

	# an argument the rules do not name is not a range
	check(gx.read_file, {"path": "big.log", "lines": 10}, big).status == "over"

	# a range does not excuse a path that is not a plain path
	check(gx.read_file, {"path": ["big.log"], "offset": 0}, big).status == "bad_path"
}

test_a_tool_without_range_arguments if {
	check("fs.cat", {"file": "big.log"}, big).status == "over"
	check("fs.cat", {"file": "big.log", "offset": 1}, big).status == "over"
}

test_a_missing_file_or_a_directory_passes_through if {
	v := check(gx.read_file, {"path": "nope.txt"}, gx.fact("nope.txt", "missing"))
	v.status == "not_a_file"
	v.applies == true
	v.refused == false
	check(gx.read_file, {"path": "src"}, gx.fact("src", "other")).status == "not_a_file"
}

test_a_fifo_a_device_or_a_socket_is_refused if {
	fifo := gx.fact("feed", "special")
	v := check(gx.read_file, {"path": "feed"}, fifo)
	v == {
		"status": "unsized", "applies": true, "refused": true, "maxBytes": 100, "path": "feed",
		"files": [{"path": "feed", "kind": "special"}],
	}
	message(gx.read_file, {"path": "feed"}, fifo) == concat("", [
		"read_guard:fs.read_file - feed has no size to check (a FIFO, a device, a socket or a file of /proc): ",
		"a read of it may never end, so plangate cannot check how much it takes. Read a regular file.",
	])

	# counted lines of it cannot be measured either
	fs_check("read_text_file", {"path": "feed", "head": 10}, fifo).status == "unsized"

	# a part of it is not the guard's business
	check(gx.read_file, {"path": "feed", "limit": 10}, fifo).status == "ranged"
}

test_a_file_outside_the_roots_is_refused_without_a_word_about_it if {
	v := check(gx.read_file, {"path": "/etc/passwd"}, gx.fact("/etc/passwd", "outside"))
	v == {
		"status": "outside_roots", "applies": true, "refused": true, "maxBytes": 100, "path": "/etc/passwd",
		"files": [{"path": "/etc/passwd", "kind": "outside"}],
	}
	message(gx.read_file, {"path": "/etc/passwd"}, gx.fact("/etc/passwd", "outside")) == concat("", [
		"read_guard:fs.read_file - /etc/passwd is outside the directories plangate may look at, so it cannot ",
		"check the size of a whole-file read there. Read a file inside them, or pass offset or limit to read a part of it.",
	])

	# a part of it is not the guard's business
	check(gx.read_file, {"path": "/etc/passwd", "limit": 10}, gx.fact("/etc/passwd", "outside")).status == "ranged"
}

test_the_host_is_asked_for_the_size if {
	v := check(gx.read_file, {"path": "big.log"}, {})
	v == {"status": "needs_size", "applies": true, "refused": false, "maxBytes": 100, "path": "big.log"}
	n := read_guard.needs with input as gx.call(gx.read_file, {"path": "big.log"}, {}) with data.plangate.rules as gx.rules
	n == {"files": ["big.log"]}

	# a fact about another path is not this call's fact
	check(gx.read_file, {"path": "big.log"}, gx.file("other.log", 5000)).status == "needs_size"
	odd := {"files": {"big.log": {"path": "other.log", "kind": "file", "size": 5000}}}
	check(gx.read_file, {"path": "big.log"}, odd).status == "needs_size"
	check(gx.read_file, {"path": "big.log"}, {"files": "big.log"}).status == "needs_size"
	not read_guard.needs with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as gx.rules
}

test_off_unless_a_ceiling_is_set if {
	mgr := object.union(gx.call(gx.read_file, {"path": "big.log"}, big), {"agent": {"id": "0xMGR", "known": true, "crews": ["mgmt"]}})
	v := read_guard.verdict with input as mgr with data.plangate.rules as gx.rules
	object.remove(v, ["files"]) == {"status": "off", "applies": false, "refused": false, "maxBytes": 0, "path": "big.log"}
	w := read_guard.verdict with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as gx.rules_off
	w.status == "off"
	odd := object.union(gx.rules, {"planningGate": {"defaults": {"readGuardMaxBytes": "10"}, "crews": {"desk": {"profile": "none"}}}})
	x := read_guard.verdict with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as odd
	x.status == "off"
}

test_only_listed_read_tools if {
	check("github.list_issues", {"path": "big.log"}, big).status == "not_listed"
	check("fs.write_file", {"path": "big.log"}, big).status == "not_read"
	v := read_guard.verdict with input as object.remove(gx.call(gx.read_file, {}, big), ["call"]) with data.plangate.rules as gx.rules
	v.status == "not_listed"
	nr := object.remove(gx.rules, ["readGuard"])
	y := read_guard.verdict with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as nr
	y.status == "not_listed"
}

test_a_path_that_is_not_one_plain_path_is_refused if {
	cases := [
		[{}, "argument \"path\" is missing"],
		[{"path": ""}, "argument \"path\" is empty"],
		[{"path": 12}, "argument \"path\" is a number, not a path"],
		[{"path": null}, "argument \"path\" is a null, not a path"],
		[{"path": ["a.log", "b.log"]}, "argument \"path\" is an array, not a path"],
		[{"path": {"p": "a.log"}}, "argument \"path\" is an object, not a path"],
		[{"path": "a.log\u0000.txt"}, "argument \"path\" contains a NUL byte"],
		[{"path": "file:///etc/passwd"}, "argument \"path\" is a URL, not a path"],
		[{"path": "file:/etc/passwd"}, "argument \"path\" is a URL, not a path"],
		[{"path": "~/notes.md"}, "argument \"path\" starts with ~, which a file server may expand to a home directory outside the roots"],
		[{"path": concat("", [concat("", [x | some _ in numbers.range(1, 4097); x := "a"]), ".log"])}, "argument \"path\" is longer than 4096 characters"],
	]
	every c in cases {
		v := check(gx.read_file, c[0], big)
		v.status == "bad_path"
		v.refused == true
		v.problem == c[1]
		not v.path
	}
	z := read_guard.verdict with input as gx.call(gx.read_file, "not-an-object", big) with data.plangate.rules as gx.rules
	z.status == "bad_path"
	message(gx.read_file, {"path": 12}, {}) == concat("", [
		"read_guard:fs.read_file - argument \"path\" is a number, not a path: name the file with one plain path ",
		"(a string, no NUL byte, not a URL), so that plangate can check the size of a whole-file read.",
	])

	# a Windows drive letter is a path, not a URL scheme
	check(gx.read_file, {"path": "C:/logs/big.log"}, gx.file("C:/logs/big.log", 5)).status == "under"
}

test_withheld_arguments_are_refused if {
	v := check(gx.read_file, {}, {"call": {"args": {}, "omittedArgs": ["path", "content"]}})
	v == {"status": "withheld", "applies": true, "refused": true, "maxBytes": 100, "withheld": ["path"]}
	w := check(gx.read_file, {"path": "big.log"}, {"call": {"args": {"path": "big.log"}, "omittedArgs": ["offset"]}})
	w.status == "withheld"
	m := message(gx.read_file, {}, {"call": {"args": {}, "omittedArgs": ["path"]}})
	m == concat("", [
		"read_guard:fs.read_file - argument(s) path were too large to be given to the policy, so this ",
		"whole-file read cannot be checked. Name the file with a short plain path.",
	])

	# an argument the guard does not read may be withheld
	u := check(gx.read_file, {"path": "big.log"}, object.union(big, {"call": {"args": {"path": "big.log"}, "omittedArgs": ["content"]}}))
	u.status == "over"
	check(gx.read_file, {"path": "big.log"}, object.union(big, {"call": {"args": {"path": "big.log"}, "omittedArgs": "path"}})).status == "over"
}

test_each_of_several_paths_is_checked if {
	two := {"files": {
		"a.log": {"path": "a.log", "kind": "file", "size": 50},
		"b.log": {"path": "b.log", "kind": "file", "size": 300},
	}}
	v := check("fs.read_many", {"paths": ["a.log", "b.log"]}, two)
	v.status == "over"
	v.paths == ["a.log", "b.log"]
	message("fs.read_many", {"paths": ["a.log", "b.log"]}, two) == concat("", [
		"read_guard:fs.read_many - this call reads all of b.log (300 bytes, 200 over), more than the 100-byte ceiling ",
		"for whole-file reads set by profile strict (rules/planning.yaml:9:5). Sample it instead (read a part of it ",
		"with a tool that takes a range), or search it for what you need, then carry on.",
	])
	check("fs.read_many", {"paths": ["a.log"]}, two).status == "under"

	# one path not yet looked up: the host is asked for it alone
	n := read_guard.needs with input as gx.call("fs.read_many", {"paths": ["a.log", "c.log"]}, two) with data.plangate.rules as gx.rules
	n == {"files": ["c.log"]}

	# one outside the roots refuses the call
	mixed := {"files": {"a.log": {"path": "a.log", "kind": "file", "size": 5}, "/etc/shadow": {"path": "/etc/shadow", "kind": "outside"}}}
	check("fs.read_many", {"paths": ["a.log", "/etc/shadow"]}, mixed).status == "outside_roots"

	# the array itself must be a plain array of plain paths
	check("fs.read_many", {"paths": "a.log"}, two).problem == "argument \"paths\" is a string, not an array of paths"
	check("fs.read_many", {"paths": []}, two).problem == "argument \"paths\" is an empty array"
	check("fs.read_many", {"paths": ["a.log", 7]}, two).problem == "argument \"paths\"[1] is a number, not a path"
	many := [x | some i in numbers.range(1, 65); x := sprintf("f%d.log", [i])]
	check("fs.read_many", {"paths": many}, two).problem == "argument \"paths\" has more than 64 paths"
	check("fs.read_many", {}, two).problem == "argument \"paths\" is missing"
}

test_message_says_to_sample_or_search if {
	m := message(gx.read_file, {"path": "big.log"}, big)
	m == concat("", [
		"read_guard:fs.read_file - this call reads all of big.log (5000 bytes, 4900 over), more than the 100-byte ceiling ",
		"for whole-file reads set by profile strict (rules/planning.yaml:9:5). Sample it instead (pass offset ",
		"or limit to read a part of it), or search it for what you need, then carry on.",
	])
	c := message("fs.cat", {"file": "big.log"}, big)
	contains(c, "read a part of it with a tool that takes a range")
}

# fs_call is a call to a filesystem server tool through the gateway, classified by its
# read-only annotation (the rules trust the fs upstream's annotations).
fs_call(tool, args, extra) := object.union(gx.call(tool, args, extra), {"call": {
	"args": args,
	"annotations": {"readOnlyHint": true},
	"mcp": {"upstream": "fs", "tool": tool, "digest": "sha256:00"},
}})

fs_check(tool, args, extra) := v if {
	v := read_guard.verdict with input as fs_call(tool, args, extra) with data.plangate.rules as gx.rules
}

test_the_filesystem_servers_read_tools_are_known_out_of_the_box if {
	fs_check("read_text_file", {"path": "big.log"}, big).status == "over"
	fs_check("read_text_file", {"path": "big.log", "head": 10}, spans(10, 80)).status == "ranged"
	fs_check("read_text_file", {"path": "big.log", "tail": 10}, spans(10, 80)).status == "ranged"
	fs_check("read_file", {"path": "big.log"}, big).status == "over"
	fs_check("read_media_file", {"path": "big.log"}, big).status == "over"
	fs_check("resources/read", {"uri": "file:///work/big.log", "path": "big.log"}, big).status == "over"
	fs_check("resources/read", {"uri": "file:///work/big.log"}, big).status == "bad_path"

	# a resource that is not a file is not the guard's: never refused as a bad path
	fs_check("resources/read", {"uri": "https://example.com/"}, big).status == "not_listed"
	fs_check("resources/read", {"uri": "memo://insights"}, big).status == "not_listed"
	fs_check("resources/read", {}, big).status == "not_listed"
	fs_check("resources/read", {"uri": 7}, big).status == "not_listed"

	# behind a gateway namespace, or a host's mcp__<server>__ prefix, too
	fs_check("files__read_text_file", {"path": "big.log"}, big).status == "over"
	fs_check("mcp__files__read_text_file", {"path": "big.log"}, big).status == "over"
	m := read_guard.message with input as fs_call("read_text_file", {"path": "big.log"}, big) with data.plangate.rules as gx.rules
	contains(m, "pass head or tail to read a part of it")

	# a listing in the rules replaces the built-in one
	listed := object.union(gx.rules, {"readGuard": {"tools": {"read_text_file": {"path": "file", "range": []}}}})
	v := read_guard.verdict with input as fs_call("read_text_file", {"file": "big.log", "head": 3}, big) with data.plangate.rules as listed
	v.status == "over"
}

two := {"files": {
	"a.txt": {"path": "a.txt", "kind": "file", "size": 10},
	"big.log": {"path": "big.log", "kind": "file", "size": 5000},
}}

test_read_multiple_files_is_known_out_of_the_box if {
	fs_check("read_multiple_files", {"paths": ["a.txt", "big.log"]}, two).status == "over"
	fs_check("read_multiple_files", {"paths": ["a.txt"]}, two).status == "under"
	fs_check("read_multiple_files", {"paths": "a.txt"}, two).status == "bad_path"
}

# spans is big.log with its first and last `n` lines measured at `bytes` bytes each.
spans(n, bytes) := {"files": {"big.log": object.union(big.files["big.log"], {"spans": [
	{"from": "head", "count": n, "bytes": bytes},
	{"from": "tail", "count": n, "bytes": bytes},
]})}}

test_a_line_count_needs_the_lines_measured_in_a_file_over_the_ceiling if {
	# before any fact, and with the size alone, the host is asked to measure the lines
	every extra in [{}, big] {
		v := fs_check("read_text_file", {"path": "big.log", "head": 10}, extra)
		v.status == "needs_size"
		v.refused == false
		needs := read_guard.needs with input as fs_call("read_text_file", {"path": "big.log", "head": 10}, extra)
			with data.plangate.rules as gx.rules
		needs == {"files": ["big.log"], "spans": [{"from": "head", "count": 10}], "upTo": 100}
	}

	# each file is named once, however many of its line counts are unmeasured
	both := read_guard.needs with input as fs_call("read_text_file", {"path": "big.log", "head": 3, "tail": 4}, big)
		with data.plangate.rules as gx.rules
	both == {"files": ["big.log"], "spans": [{"from": "head", "count": 3}, {"from": "tail", "count": 4}], "upTo": 100}

	# a span measured for another count or from the other end does not count
	fs_check("read_text_file", {"path": "big.log", "head": 11}, spans(10, 80)).status == "needs_size"
	fs_check("read_text_file", {"path": "big.log", "head": 10}, {"files": {"big.log": object.union(
		big.files["big.log"],
		{"spans": [{"from": "tail", "count": 10, "bytes": 80}, {"from": "head", "count": 10, "bytes": "80"}]},
	)}}).status == "needs_size"

	# a file at or under the ceiling needs no measure, and a missing one passes through
	fs_check("read_text_file", {"path": "big.log", "tail": 10}, gx.file("big.log", 100)).status == "ranged"
	fs_check("read_text_file", {"path": "nope", "tail": 10}, gx.fact("nope", "missing")).status == "not_a_file"
}

test_lines_over_the_ceiling_are_refused_like_the_whole_file if {
	args := {"path": "big.log", "head": 50}
	v := fs_check("read_text_file", args, spans(50, 101))
	v.status == "lines_over"
	v.refused == true
	v.lines == [{"path": "big.log", "from": "head", "count": 50, "bytes": 101}]
	m := read_guard.message with input as fs_call("read_text_file", args, spans(50, 101)) with data.plangate.rules as gx.rules
	m == concat("", [
		"read_guard:read_text_file - the first 50 lines of big.log take more than the 100-byte ceiling for whole-file ",
		"reads set by profile strict (rules/planning.yaml:9:5): as good as reading it whole. Ask for fewer lines, ",
		"or search it for what you need, then carry on.",
	])
	t := read_guard.message with input as fs_call("read_text_file", {"path": "big.log", "tail": 50}, spans(50, 101))
		with data.plangate.rules as gx.rules
	startswith(t, "read_guard:read_text_file - the last 50 lines of big.log take more")

	# a count above the ceiling is a whole-file read
	fs_check("read_text_file", {"path": "big.log", "head": 101}, spans(101, 101)).status == "over"
}

test_a_line_count_outside_the_roots_is_refused if {
	args := {"path": "/etc/passwd", "head": 5}
	outside := gx.fact("/etc/passwd", "outside")
	fs_check("read_text_file", args, outside).status == "outside_roots"
	m := read_guard.message with input as fs_call("read_text_file", args, outside) with data.plangate.rules as gx.rules
	m == concat("", [
		"read_guard:read_text_file - /etc/passwd is outside the directories plangate may look at, so it cannot ",
		"check how large the lines asked for are. Read a file inside them.",
	])
}

test_a_withheld_line_count_is_refused if {
	call := object.union(fs_call("read_text_file", {"path": "big.log"}, big), {"call": {"omittedArgs": ["tail"]}})
	v := read_guard.verdict with input as call with data.plangate.rules as gx.rules
	v.status == "withheld"
	v.withheld == ["tail"]
}

# at_rules list fs.read_at, whose offset says where the read starts and whose limit bounds it.
at_rules := object.union(gx.rules, {"readGuard": {"tools": {"fs.read_at": {"path": "path", "range": ["limit"], "skip": ["offset"]}}}})

at_check(args) := v if {
	v := read_guard.verdict with input as fs_call("fs.read_at", args, big) with data.plangate.rules as at_rules
}

at_message(args) := m if {
	m := read_guard.message with input as fs_call("fs.read_at", args, big) with data.plangate.rules as at_rules
}

test_an_offset_alone_reads_the_rest_of_the_file if {
	at_check({"path": "big.log", "offset": 1}).status == "over"
	at_message({"path": "big.log", "offset": 1}) == concat("", [
		"read_guard:fs.read_at - this call reads the rest of big.log from offset 1 on (up to 5000 bytes, 4900 over), ",
		"more than the 100-byte ceiling for whole-file reads set by profile strict (rules/planning.yaml:9:5). ",
		"Sample it instead (pass limit to read a part of it), or search it for what you need, then carry on.",
	])

	# the rest within the ceiling passes; a limit makes it a part wherever it starts
	at_check({"path": "big.log", "offset": 4901}).status == "under"
	at_check({"path": "big.log", "offset": 4901}).refused == false
	at_check({"path": "big.log", "offset": 4900}).status == "over"
	at_check({"path": "big.log", "offset": 1, "limit": 50}).status == "ranged"

	# an offset that is not a whole number from 1 starts at the beginning
	every v in [-5, 2.5, "4900", null, [4900]] {
		at_check({"path": "big.log", "offset": v}).status == "over"
		startswith(at_message({"path": "big.log", "offset": v}), "read_guard:fs.read_at - this call reads all of big.log")
	}

	# an offset of 0 starts at the beginning
	contains(at_message({"path": "big.log", "offset": 0}), "this call reads the rest of big.log from offset 0 on (up to 5000 bytes")

	# an offset withheld for its size is refused like any guarded argument
	call := object.union(fs_call("fs.read_at", {"path": "big.log"}, big), {"call": {"omittedArgs": ["offset"]}})
	v := read_guard.verdict with input as call with data.plangate.rules as at_rules
	v.status == "withheld"
}

test_lines_the_host_could_not_measure_are_refused if {
	args := {"path": "big.log", "head": 10}
	facts := {"files": {"big.log": object.union(big.files["big.log"], {"spans": [{"from": "head", "count": 10, "bytes": null}]})}}
	v := fs_check("read_text_file", args, facts)
	v.status == "lines_unmeasured"
	v.refused == true
	v.lines == [{"path": "big.log", "from": "head", "count": 10, "bytes": null}]
	m := read_guard.message with input as fs_call("read_text_file", args, facts) with data.plangate.rules as gx.rules
	m == concat("", [
		"read_guard:read_text_file - plangate could not measure the first 10 lines of big.log (the file could not be read, ",
		"or the lines before them run on too far), so it cannot tell whether they take more than the 100-byte ceiling ",
		"for whole-file reads set by profile strict (rules/planning.yaml:9:5). Ask for fewer lines nearer the start, ",
		"or search it for what you need.",
	])
}

# window_rules list Read, whose offset is a line to start from and whose limit counts lines from there.
window_rules := object.union(gx.rules, {"readGuard": {"tools": {"Read": {
	"path": "file_path", "range": [],
	"lines": {"head": "limit"}, "skip": ["offset"],
}}}})

window(args, extra) := v if {
	v := read_guard.verdict with input as fs_call("Read", args, extra) with data.plangate.rules as window_rules
}

window_needs(args) := n if {
	n := read_guard.needs with input as fs_call("Read", args, big) with data.plangate.rules as window_rules
}

measured_at(skip, bytes) := {"files": {"big.log": object.union(big.files["big.log"], {"spans": [{"from": "head", "count": 5, "skip": skip, "bytes": bytes}]})}}

test_lines_from_an_offset_are_measured_from_there if {
	# the lines an offset from 1 skips are one fewer than it (it may count from 1)
	window_needs({"file_path": "big.log", "offset": 40, "limit": 5}) == {"files": ["big.log"], "spans": [{"from": "head", "count": 5, "skip": 39}], "upTo": 100}
	window_needs({"file_path": "big.log", "offset": 1, "limit": 5}) == {"files": ["big.log"], "spans": [{"from": "head", "count": 5}], "upTo": 100}
	window({"file_path": "big.log", "offset": 40, "limit": 5}, measured_at(39, 60)).status == "ranged"

	# a span measured from another line does not count
	window({"file_path": "big.log", "offset": 41, "limit": 5}, measured_at(39, 60)).status == "needs_size"

	v := window({"file_path": "big.log", "offset": 40, "limit": 5}, measured_at(39, 101))
	v.status == "lines_over"
	v.lines == [{"path": "big.log", "from": "head", "count": 5, "skip": 39, "bytes": 101}]
	m := read_guard.message with input as fs_call("Read", {"file_path": "big.log", "offset": 40, "limit": 5}, measured_at(39, 101))
		with data.plangate.rules as window_rules
	startswith(m, "read_guard:Read - the first 5 lines of big.log from line 40 on take more than the 100-byte ceiling")

	# an offset alone still reads the rest of the file
	window({"file_path": "big.log", "offset": 40}, big).status == "over"
}

two_starts := object.union(gx.rules, {"readGuard": {"tools": {"fs.read_at": {"path": "path", "range": ["limit"], "skip": ["offset", "line"]}}}})

check_at(args) := v if {
	v := read_guard.verdict with input as fs_call("fs.read_at", args, big) with data.plangate.rules as two_starts
}

test_the_smallest_start_counts if {
	# the tool may honour either start: the earlier one counts, and one that is not a whole number from 1 starts at 0
	check_at({"path": "big.log", "offset": 4901, "line": 4950}).status == "under"
	check_at({"path": "big.log", "offset": 10, "line": 4950}).status == "over"
	check_at({"path": "big.log", "offset": 0, "line": 4950}).status == "over"
	check_at({"path": "big.log", "offset": 9007199254740993, "line": 4950}).status == "over"

	# a start past the end is not counted, nor is an unset one
	check_at({"path": "big.log", "offset": 100000}).status == "over"
	check_at({"path": "big.log", "offset": null, "line": 4950}).status == "under"
}

test_lines_from_a_start_nobody_can_place_are_no_part if {
	# a start that is not a whole number from 1, or two different ones, leaves the lines unplaced:
	# the call is checked as a read of the rest of the file
	every args in [
		{"file_path": "big.log", "offset": 11.5, "limit": 5},
		{"file_path": "big.log", "offset": "11", "limit": 5},
		{"file_path": "big.log", "offset": -11, "limit": 5},
	] {
		window(args, big).status == "over"
		m := read_guard.message with input as fs_call("Read", args, big) with data.plangate.rules as window_rules
		contains(m, "Give offset as one whole line number to start from, or leave it out.")
	}

	# 0 and 1 both start at the first line
	window_needs({"file_path": "big.log", "offset": 0, "limit": 5}).spans == [{"from": "head", "count": 5}]
	two := object.union(window_rules, {"readGuard": {"tools": {"Read": {"skip": ["offset", "line"]}}}})
	v := read_guard.verdict with input as fs_call("Read", {"file_path": "big.log", "offset": 1, "line": 11, "limit": 5}, big)
		with data.plangate.rules as two
	v.status == "over"
	same := read_guard.needs with input as fs_call("Read", {"file_path": "big.log", "offset": 11, "line": 11, "limit": 5}, big)
		with data.plangate.rules as two
	same.spans == [{"from": "head", "count": 5, "skip": 10}]
}

test_a_path_named_twice_is_looked_up_once if {
	needs := read_guard.needs with input as fs_call("read_multiple_files", {"paths": ["b", "a", "b"]}, {}) with data.plangate.rules as gx.rules
	needs == {"files": ["a", "b"]}
}

test_outside_the_roots_only_a_range_is_offered if {
	# the filesystem server's line counts are refused outside the roots too: not offered
	outside := gx.fact("/etc/passwd", "outside")
	m := read_guard.message with input as fs_call("read_text_file", {"path": "/etc/passwd"}, outside) with data.plangate.rules as gx.rules
	endswith(m, "check the size of a whole-file read there. Read a file inside them.")
}
