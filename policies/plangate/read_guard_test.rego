package plangate.read_guard_test

import data.plangate.gate_fixtures_test as gx
import data.plangate.read_guard

# check evaluates the read guard for the worker (ceiling 100 bytes via desk's profile).
check(tool, args, extra) := v if {
	v := read_guard.verdict with input as gx.call(tool, args, extra) with data.plangate.rules as gx.rules
}

big := gx.file("big.log", 5000)

test_whole_file_read_over_the_ceiling_is_refused if {
	v := check(gx.read_file, {"path": "big.log"}, big)
	v == {
		"status": "over", "applies": true, "refused": true, "maxBytes": 100, "path": "big.log",
		"file": {"path": "big.log", "resolved": "/work/big.log", "kind": "file", "size": 5000},
	}
	read_guard.code == "read_guard:fs.read_file" with input as gx.call(gx.read_file, {"path": "big.log"}, big)
}

test_at_or_under_the_ceiling_passes if {
	check(gx.read_file, {"path": "big.log"}, gx.file("big.log", 100)).status == "under"
	check(gx.read_file, {"path": "big.log"}, gx.file("big.log", 0)).refused == false
}

test_a_range_makes_it_a_partial_read if {
	every args in [{"path": "big.log", "offset": 0}, {"path": "big.log", "limit": 10}, {"path": "big.log", "offset": 5, "limit": 10}] {
		v := check(gx.read_file, args, big)
		v.status == "ranged"
		v.refused == false
		v.applies == false
	}

	# a range argument set to null is not given
	check(gx.read_file, {"path": "big.log", "offset": null}, big).status == "over"

	# an argument the rules do not name is not a range
	check(gx.read_file, {"path": "big.log", "lines": 10}, big).status == "over"
}

test_a_tool_without_range_arguments if {
	check("fs.cat", {"file": "big.log"}, big).status == "over"
	check("fs.cat", {"file": "big.log", "offset": 1}, big).status == "over"
}

test_a_missing_file_or_a_directory_passes_through if {
	missing := {"file": {"path": "nope.txt", "resolved": "/work/nope.txt", "kind": "missing"}}
	v := check(gx.read_file, {"path": "nope.txt"}, missing)
	v.status == "not_a_file"
	v.applies == true
	v.refused == false
	dir := {"file": {"path": "src", "resolved": "/work/src", "kind": "other"}}
	check(gx.read_file, {"path": "src"}, dir).status == "not_a_file"
}

test_the_host_is_asked_for_the_size if {
	v := check(gx.read_file, {"path": "big.log"}, {})
	v == {"status": "needs_size", "applies": true, "refused": false, "maxBytes": 100, "path": "big.log"}
	n := read_guard.needs with input as gx.call(gx.read_file, {"path": "big.log"}, {}) with data.plangate.rules as gx.rules
	n == {"file": {"arg": "path", "path": "big.log"}}

	# a fact about another path is not this call's fact
	check(gx.read_file, {"path": "big.log"}, gx.file("other.log", 5000)).status == "needs_size"
	not read_guard.needs with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as gx.rules
}

test_off_unless_a_ceiling_is_set if {
	mgr := object.union(gx.call(gx.read_file, {"path": "big.log"}, big), {"agent": {"id": "0xMGR", "known": true, "crews": ["mgmt"]}})
	v := read_guard.verdict with input as mgr with data.plangate.rules as gx.rules
	object.remove(v, ["file"]) == {"status": "off", "applies": false, "refused": false, "maxBytes": 0, "path": "big.log"}
	w := read_guard.verdict with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as gx.rules_off
	w.status == "off"
	odd := object.union(gx.rules, {"planningGate": {"defaults": {"readGuardMaxBytes": "10"}, "crews": {"desk": {"profile": "none"}}}})
	x := read_guard.verdict with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as odd
	x.status == "off"
}

test_only_listed_read_tools_with_a_path if {
	check("github.list_issues", {"path": "big.log"}, big).status == "not_listed"
	check("fs.write_file", {"path": "big.log"}, big).status == "not_read"
	check(gx.read_file, {}, big).status == "no_path"
	check(gx.read_file, {"path": ""}, big).status == "no_path"
	check(gx.read_file, {"path": 12}, big).status == "no_path"
	v := read_guard.verdict with input as object.remove(gx.call(gx.read_file, {}, big), ["call"]) with data.plangate.rules as gx.rules
	v.status == "not_listed"
	nr := object.remove(gx.rules, ["readGuard"])
	check(gx.read_file, {"path": "big.log"}, big).status == "over"
	y := read_guard.verdict with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as nr
	y.status == "not_listed"
	z := read_guard.verdict with input as gx.call(gx.read_file, "not-an-object", big) with data.plangate.rules as gx.rules
	z.status == "no_path"
}

test_message_says_to_sample_or_search if {
	m := read_guard.message with input as gx.call(gx.read_file, {"path": "big.log"}, big) with data.plangate.rules as gx.rules
	m == concat("", [
		"read_guard:fs.read_file — this call reads all of big.log (5000 bytes), more than the 100-byte ceiling ",
		"for whole-file reads set by profile strict (rules/planning.yaml:9:5). Sample it instead — pass offset ",
		"or limit to read a part of it — or search it for what you need, then carry on.",
	])
	c := read_guard.message with input as gx.call("fs.cat", {"file": "big.log"}, big) with data.plangate.rules as gx.rules
	contains(c, "read a part of it with a tool that takes a range")
}

# fs_call is a call to a filesystem server tool, classified by its read-only annotation.
fs_call(tool, args, extra) := object.union(gx.call(tool, args, extra), {"call": {"args": args, "annotations": {"readOnlyHint": true}}})

fs_check(tool, args, extra) := v if {
	v := read_guard.verdict with input as fs_call(tool, args, extra) with data.plangate.rules as gx.rules
}

test_the_filesystem_servers_read_tools_are_known_out_of_the_box if {
	fs_check("read_text_file", {"path": "big.log"}, big).status == "over"
	fs_check("read_text_file", {"path": "big.log", "head": 10}, big).status == "ranged"
	fs_check("read_text_file", {"path": "big.log", "tail": 10}, big).status == "ranged"
	fs_check("read_file", {"path": "big.log"}, big).status == "over"
	fs_check("read_media_file", {"path": "big.log"}, big).status == "over"
	fs_check("resources/read", {"uri": "file:///work/big.log", "path": "big.log"}, big).status == "over"
	fs_check("resources/read", {"uri": "https://example.com/"}, big).status == "no_path"

	# behind a gateway namespace too
	fs_check("files__read_text_file", {"path": "big.log"}, big).status == "over"
	m := read_guard.message with input as fs_call("read_text_file", {"path": "big.log"}, big) with data.plangate.rules as gx.rules
	contains(m, "pass head or tail to read a part of it")

	# a listing in the rules replaces the built-in one
	listed := object.union(gx.rules, {"readGuard": {"tools": {"read_text_file": {"path": "file", "range": []}}}})
	v := read_guard.verdict with input as fs_call("read_text_file", {"file": "big.log", "head": 3}, big) with data.plangate.rules as listed
	v.status == "over"
}

two := {"files": [
	{"path": "a.txt", "resolved": "/work/a.txt", "kind": "file", "size": 10},
	{"path": "big.log", "resolved": "/work/big.log", "kind": "file", "size": 5000},
]}

test_an_array_of_paths_is_refused_when_one_file_is_over if {
	v := fs_check("read_multiple_files", {"paths": ["a.txt", "big.log"]}, two)
	v.status == "over"
	v.path == "big.log"
	v.file.size == 5000
	fs_check("read_multiple_files", {"paths": ["a.txt"]}, two).status == "under"
}

test_an_array_of_paths_asks_for_the_missing_sizes if {
	v := fs_check("read_multiple_files", {"paths": ["a.txt", "c.txt", "d.txt"]}, two)
	v.status == "needs_size"
	n := read_guard.needs with input as fs_call("read_multiple_files", {"paths": ["a.txt", "c.txt", "d.txt"]}, two)
		with data.plangate.rules as gx.rules
	n == {"files": {"arg": "paths", "paths": ["c.txt", "d.txt"]}}
}

test_an_array_of_paths_must_hold_non_empty_strings if {
	fs_check("read_multiple_files", {"paths": []}, two).status == "no_path"
	fs_check("read_multiple_files", {"paths": ["a.txt", 3]}, two).status == "no_path"
	fs_check("read_multiple_files", {"paths": ["a.txt", ""]}, two).status == "no_path"
}

test_an_array_of_things_that_are_not_files_passes if {
	dirs := {"files": [{"path": "src", "resolved": "/work/src", "kind": "other"}, {"path": "gone", "resolved": "/work/gone", "kind": "missing"}]}
	fs_check("read_multiple_files", {"paths": ["src", "gone"]}, dirs).status == "not_a_file"
	mixed := {"files": [{"path": "src", "resolved": "/work/src", "kind": "other"}, {"path": "a.txt", "resolved": "/work/a.txt", "kind": "file", "size": 10}]}
	fs_check("read_multiple_files", {"paths": ["src", "a.txt"]}, mixed).status == "under"
}
