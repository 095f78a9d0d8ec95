/**
 * `plangate init --hook NAME`: for every host, on an empty project and on
 * one whose settings already hold the user's hooks and MCP servers — the
 * user's entries are all still there, plangate's are added once, a second
 * run writes the same bytes, and the rules directory still passes check.
 * Bad files are refused with file:line:col and nothing is written.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { HOST_NAMES, type HostName } from '../../src/adapters/hook/contract.js';
import { cli, tempDir } from '../cli/run.js';

/** The project files each host's setup writes (user-level ones only with --user). */
const FILES: Record<HostName, string[]> = {
  'claude-code': ['.claude/settings.json', '.mcp.json'],
  codex: ['.codex/hooks.json', '.codex/config.toml'],
  'gemini-cli': ['.gemini/settings.json'],
  cursor: ['.cursor/hooks.json', '.cursor/mcp.json'],
  copilot: ['.github/hooks/plangate.json'],
  windsurf: ['.windsurf/hooks.json'],
  cline: ['.clinerules/hooks/PreToolUse'],
};

interface World {
  root: string;
  /** A directory with an executable `plangate`, for the PATH: an installed plangate. */
  bin: string;
  project: string;
  rules: string;
  home: string;
}

function world(): World {
  const root = tempDir('plangate-init-hook-');
  const w = { root, bin: join(root, 'bin'), project: join(root, 'project'), rules: join(root, 'rules'), home: join(root, 'home') };
  mkdirSync(w.project);
  mkdirSync(w.home);
  mkdirSync(w.bin);
  writeFileSync(join(w.bin, 'plangate'), '#!/bin/sh\n', { mode: 0o755 });
  return w;
}

function init(w: World, host: string, ...extra: string[]) {
  return cli(['--rules', w.rules, 'init', '--hook', host, '--agent', '0xDEV', '--project', w.project, ...extra], { HOME: w.home, PATH: w.bin });
}

/** Every file under a directory, by relative path, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), rel);
      else out[rel] = readFileSync(join(d, e.name), 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

function json(w: World, file: string): Record<string, any> {
  return JSON.parse(readFileSync(join(w.project, file), 'utf8')) as Record<string, any>;
}

function put(w: World, file: string, text: string): void {
  mkdirSync(dirname(join(w.project, file)), { recursive: true });
  writeFileSync(join(w.project, file), text);
}

describe('plangate init --hook on an empty project', () => {
  for (const host of HOST_NAMES) {
    it(`${host}: writes the hook, the MCP server and the classification; twice = same bytes`, async () => {
      const w = world();
      const first = await init(w, host);
      expect(first.status, first.out + first.err).toBe(0);
      for (const file of FILES[host]) {
        expect(existsSync(join(w.project, file)), file).toBe(true);
        expect(first.out).toMatch(new RegExp(`created .*${file.replaceAll('.', '\\.')}`));
        const text = readFileSync(join(w.project, file), 'utf8');
        expect(text).toContain(`hook --format ${host} --agent 0xDEV`.split(' ')[0]);
      }
      expect(readFileSync(join(w.rules, `${host}.yaml`), 'utf8')).toBe(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'hosts', `${host}.yaml`), 'utf8'));
      const before = { project: snapshot(w.project), rules: snapshot(w.rules), home: snapshot(w.home) };
      const hookFile = readFileSync(join(w.project, FILES[host][0]!), 'utf8');
      expect(hookFile).toContain(`--rules ${w.rules} hook --format ${host} --agent 0xDEV`);

      const second = await init(w, host);
      expect(second.status, second.err).toBe(0);
      expect(second.out).not.toMatch(/^(created|updated) /m);
      expect({ project: snapshot(w.project), rules: snapshot(w.rules), home: snapshot(w.home) }).toEqual(before);
      const checked = await cli(['check', w.rules]);
      expect(checked.status, checked.out + checked.err).toBe(0);
    });
  }

  it('writes the fail-closed setting wherever the host has one', async () => {
    const w = world();
    await init(w, 'cursor');
    // Both Cursor events fail closed: preToolUse for every tool but MCP ones, beforeMCPExecution for those, with plangate's server named by its command in mcp.json.
    const server = `plangate --rules ${w.rules} mcp --agent 0xDEV --plangate-tools-only`;
    expect(json(w, '.cursor/hooks.json')).toEqual({
      version: 1,
      hooks: {
        preToolUse: [{ command: `plangate --rules ${w.rules} hook --format cursor --agent 0xDEV --mcp-via beforeMCPExecution`, failClosed: true }],
        beforeMCPExecution: [{ command: `plangate --rules ${w.rules} hook --format cursor --agent 0xDEV --plangate-server-command '${server}'`, failClosed: true }],
      },
    });
    expect(json(w, '.cursor/mcp.json')).toEqual({ mcpServers: { plangate: { command: 'plangate', args: ['--rules', w.rules, 'mcp', '--agent', '0xDEV', '--plangate-tools-only'] } } });
    await init(w, 'claude-code');
    expect(json(w, '.claude/settings.json').hooks.PreToolUse).toEqual([
      { matcher: '*', hooks: [{ type: 'command', command: `plangate --rules ${w.rules} hook --format claude-code --agent 0xDEV`, onFailure: 'block' }] },
    ]);
  });

  it('passes the store and audit given on the command line, absolute; never a database URL nor what came from the environment', async () => {
    const w = world();
    let r = await cli(['--rules', w.rules, '--store', 'state/plangate.db', '--audit', 'postgres://gate:secret@db/plangate', 'init', '--hook', 'cursor', '--agent', '0xDEV', '--project', w.project], { HOME: w.home, PATH: w.bin });
    expect(r.status, r.err).toBe(0);
    const command = json(w, '.cursor/hooks.json').hooks.preToolUse[0].command as string;
    expect(command).toBe(`plangate --rules ${w.rules} --store ${join(process.cwd(), 'state/plangate.db')} hook --format cursor --agent 0xDEV --mcp-via beforeMCPExecution`);
    expect(JSON.stringify(json(w, '.cursor/mcp.json'))).not.toContain('secret');
    const v = world();
    r = await cli(['--rules', v.rules, 'init', '--hook', 'cursor', '--agent', '0xDEV', '--project', v.project], { HOME: v.home, PATH: v.bin, PLANGATE_STORE: '/var/lib/plangate.db' });
    expect(json(v, '.cursor/hooks.json').hooks.preToolUse[0].command).not.toContain('--store');
  });

  it('cline: an executable hook script; the MCP entry is shown, not guessed into the editor storage', async () => {
    const w = world();
    const r = await init(w, 'cline');
    const script = join(w.project, '.clinerules/hooks/PreToolUse');
    expect(readFileSync(script, 'utf8')).toBe(`#!/bin/sh\n# plangate decides every Cline tool call (written by plangate init --hook cline).\nexec plangate --rules ${w.rules} hook --format cline --agent 0xDEV\n`);
    expect(statSync(script).mode & 0o111).not.toBe(0);
    expect(r.out).toMatch(/not written cline_mcp_settings\.json/);
    expect(r.out).toContain('"plangate": {');
  });

  it('writes a user-level MCP file only with --user, merged with what is there', async () => {
    const w = world();
    const plain = await init(w, 'windsurf');
    expect(plain.out).toMatch(/not written .*mcp_config\.json.*\n.*--user/);
    expect(existsSync(join(w.home, '.codeium/windsurf/mcp_config.json'))).toBe(false);
    mkdirSync(join(w.home, '.codeium/windsurf'), { recursive: true });
    writeFileSync(join(w.home, '.codeium/windsurf/mcp_config.json'), JSON.stringify({ mcpServers: { github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] } } }));
    const user = await init(w, 'windsurf', '--user');
    expect(user.status, user.err).toBe(0);
    const servers = JSON.parse(readFileSync(join(w.home, '.codeium/windsurf/mcp_config.json'), 'utf8')).mcpServers;
    expect(Object.keys(servers)).toEqual(['github', 'plangate']);
    expect(servers.github).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] });
  });
});

describe('plangate init --hook without plangate on the PATH', () => {
  it("writes this installation's Node and entry point, says so, and knows them for its own on a second run", async () => {
    const w = world();
    const run = () => cli(['--rules', w.rules, 'init', '--hook', 'claude-code', '--agent', '0xDEV', '--project', w.project], { HOME: w.home, PATH: w.project });
    const r = await run();
    expect(r.status, r.err).toBe(0);
    expect(r.out).toMatch(/note: no plangate on PATH; the host runs it as \S*node\S* \S*bin\/plangate\.js/);
    const bin = join(process.cwd(), 'bin', 'plangate.js');
    const settings = json(w, '.claude/settings.json');
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toBe(`${process.execPath} ${bin} --rules ${w.rules} hook --format claude-code --agent 0xDEV`);
    expect(json(w, '.mcp.json').mcpServers.plangate).toEqual({ command: process.execPath, args: [bin, '--rules', w.rules, 'mcp', '--agent', '0xDEV', '--plangate-tools-only'] });
    const before = snapshot(w.project);
    expect((await run()).status).toBe(0);
    expect(snapshot(w.project)).toEqual(before);
  });
});

describe('plangate init --hook on settings that already hold hooks and MCP servers', () => {
  it('claude-code: keeps every user hook and server; replaces only its own earlier entry', async () => {
    const w = world();
    const userHook = { matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/no-force-push.sh' }] };
    put(w, '.claude/settings.json', JSON.stringify({ permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [userHook], PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'npx prettier --write' }] }] } }, null, 4));
    put(w, '.mcp.json', JSON.stringify({ mcpServers: { github: { command: 'npx', args: ['-y', 'server-github'] } } }));
    expect((await init(w, 'claude-code')).status).toBe(0);
    const settings = json(w, '.claude/settings.json');
    expect(settings.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(settings.hooks.PostToolUse).toHaveLength(1);
    expect(settings.hooks.PreToolUse[0]).toEqual(userHook);
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(Object.keys(json(w, '.mcp.json').mcpServers)).toEqual(['github', 'plangate']);
    const once = snapshot(w.project);
    expect((await init(w, 'claude-code')).status).toBe(0);
    expect(snapshot(w.project)).toEqual(once);
    // A new seat replaces plangate's entry in place; the user's stay.
    const reseated = await cli(['--rules', w.rules, 'init', '--hook', 'claude-code', '--agent', '0xOTHER', '--project', w.project], { HOME: w.home, PATH: w.bin });
    expect(reseated.out).toMatch(/updated .*settings\.json/);
    const after = json(w, '.claude/settings.json').hooks.PreToolUse;
    expect(after).toHaveLength(2);
    expect(after[1].hooks[0].command).toContain('--agent 0xOTHER');
  });

  it('gemini-cli, cursor, windsurf, copilot: nothing of the user is lost, twice = same bytes', async () => {
    const w = world();
    put(w, '.gemini/settings.json', JSON.stringify({ theme: 'GitHub', hooks: { BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: './lint.sh' }] }] }, mcpServers: { db: { command: 'db-mcp' } } }));
    put(w, '.cursor/hooks.json', JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: './audit.sh' }], preToolUse: [{ command: './guard.sh', matcher: 'Write' }], beforeMCPExecution: [{ command: './mcp-audit.sh' }] } }));
    put(w, '.cursor/mcp.json', JSON.stringify({ mcpServers: { db: { url: 'http://localhost:9000/mcp' } } }));
    put(w, '.windsurf/hooks.json', JSON.stringify({ hooks: { post_write_code: [{ command: 'npx prettier --write', show_output: false }], pre_run_command: [{ command: './deny-rm.sh' }] } }));
    put(w, '.github/hooks/plangate.json', JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo start >> log' }] } }));
    for (const host of ['gemini-cli', 'cursor', 'windsurf', 'copilot']) expect((await init(w, host)).status).toBe(0);
    const gemini = json(w, '.gemini/settings.json');
    expect(gemini.theme).toBe('GitHub');
    expect(gemini.hooks.BeforeTool.map((g: any) => g.hooks[0].command)).toEqual(['./lint.sh', `plangate --rules ${w.rules} hook --format gemini-cli --agent 0xDEV`]);
    expect(Object.keys(gemini.mcpServers)).toEqual(['db', 'plangate']);
    const cursorHooks = json(w, '.cursor/hooks.json').hooks;
    expect(cursorHooks.beforeShellExecution).toEqual([{ command: './audit.sh' }]);
    expect(cursorHooks.preToolUse.map((e: any) => e.command)).toEqual(['./guard.sh', `plangate --rules ${w.rules} hook --format cursor --agent 0xDEV --mcp-via beforeMCPExecution`]);
    expect(cursorHooks.beforeMCPExecution.map((e: any) => e.command)).toEqual(['./mcp-audit.sh', `plangate --rules ${w.rules} hook --format cursor --agent 0xDEV --plangate-server-command 'plangate --rules ${w.rules} mcp --agent 0xDEV --plangate-tools-only'`]);
    expect(json(w, '.cursor/mcp.json').mcpServers.db).toEqual({ url: 'http://localhost:9000/mcp' });
    const windsurf = json(w, '.windsurf/hooks.json').hooks;
    expect(windsurf.post_write_code).toEqual([{ command: 'npx prettier --write', show_output: false }]);
    expect(windsurf.pre_run_command.map((e: any) => e.command)).toEqual(['./deny-rm.sh', `plangate --rules ${w.rules} hook --format windsurf --agent 0xDEV`]);
    for (const event of ['pre_write_code', 'pre_read_code', 'pre_mcp_tool_use']) expect(windsurf[event]).toHaveLength(1);
    const copilot = json(w, '.github/hooks/plangate.json');
    expect(copilot.hooks.sessionStart).toEqual([{ type: 'command', bash: 'echo start >> log' }]);
    expect(copilot.hooks.preToolUse).toEqual([{ type: 'command', bash: `plangate --rules ${w.rules} hook --format copilot --agent 0xDEV`, timeoutSec: 30 }]);

    const once = snapshot(w.project);
    for (const host of ['gemini-cli', 'cursor', 'windsurf', 'copilot']) expect((await init(w, host)).status).toBe(0);
    expect(snapshot(w.project)).toEqual(once);
  });

  it("codex: appends plangate's table to the user's config.toml, keeping it byte for byte", async () => {
    const w = world();
    const toml = '# my settings\nmodel = "gpt-5.3-codex"\n\n[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "server-github"]\n';
    put(w, '.codex/config.toml', toml);
    put(w, '.codex/hooks.json', JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: './on-stop.sh' }] }] } }));
    expect((await init(w, 'codex')).status).toBe(0);
    const text = readFileSync(join(w.project, '.codex/config.toml'), 'utf8');
    expect(text.startsWith(toml)).toBe(true);
    const parsed = parseToml(text) as any;
    expect(parsed.mcp_servers.github).toEqual({ command: 'npx', args: ['-y', 'server-github'] });
    expect(parsed.mcp_servers.plangate).toEqual({ command: 'plangate', args: ['--rules', w.rules, 'mcp', '--agent', '0xDEV', '--plangate-tools-only'] });
    expect(json(w, '.codex/hooks.json').hooks.Stop).toHaveLength(1);
    const once = snapshot(w.project);
    expect((await init(w, 'codex')).status).toBe(0);
    expect(snapshot(w.project)).toEqual(once);
  });

  it("cursor: an earlier init's preToolUse-only entry is replaced, not doubled, and a new seat replaces both entries", async () => {
    const w = world();
    put(w, '.cursor/hooks.json', JSON.stringify({ version: 1, hooks: { preToolUse: [{ command: `plangate --rules ${w.rules} hook --format cursor --agent 0xDEV`, failClosed: true }] } }));
    expect((await init(w, 'cursor')).status).toBe(0);
    let hooks = json(w, '.cursor/hooks.json').hooks;
    expect(hooks.preToolUse.map((e: any) => e.command)).toEqual([`plangate --rules ${w.rules} hook --format cursor --agent 0xDEV --mcp-via beforeMCPExecution`]);
    expect(hooks.beforeMCPExecution).toHaveLength(1);
    const r = await cli(['--rules', w.rules, 'init', '--hook', 'cursor', '--agent', '0xOTHER', '--project', w.project], { HOME: w.home, PATH: w.bin });
    expect(r.status, r.err).toBe(0);
    hooks = json(w, '.cursor/hooks.json').hooks;
    expect(hooks.preToolUse.map((e: any) => e.command)).toEqual([`plangate --rules ${w.rules} hook --format cursor --agent 0xOTHER --mcp-via beforeMCPExecution`]);
    expect(hooks.beforeMCPExecution.map((e: any) => e.command)).toEqual([`plangate --rules ${w.rules} hook --format cursor --agent 0xOTHER --plangate-server-command 'plangate --rules ${w.rules} mcp --agent 0xOTHER --plangate-tools-only'`]);
  });

  it('leaves out of the classification what another rule file already lists, so check still passes', async () => {
    const w = world();
    expect((await init(w, 'claude-code')).status).toBe(0);
    const r = await init(w, 'cursor');
    expect(r.out).toMatch(/note: Read is already listed in claude-code\.yaml \(as read\)/);
    expect(r.out).toMatch(/note: the read guard's Read is already set in claude-code\.yaml/);
    const cursorRules = readFileSync(join(w.rules, 'cursor.yaml'), 'utf8');
    expect(cursorRules).not.toMatch(/\bRead\b.*\bGrep\b/);
    expect(cursorRules).toContain('Shell');
    const checked = await cli(['check', w.rules]);
    expect(checked.status, checked.out + checked.err).toBe(0);
    // An edited classification file is never written over.
    writeFileSync(join(w.rules, 'cursor.yaml'), 'tools:\n  read: [Shell]\n');
    const again = await init(w, 'cursor');
    expect(again.out).toMatch(/cursor\.yaml exists and differs from plangate's; left as it is/);
    expect(readFileSync(join(w.rules, 'cursor.yaml'), 'utf8')).toBe('tools:\n  read: [Shell]\n');
  });
});

describe('plangate init --hook refuses, and then writes nothing', () => {
  it('a settings file that is not JSON: file:line:col', async () => {
    const w = world();
    put(w, '.cursor/mcp.json', '{\n  "mcpServers": {\n    "db": { "url": "http://x" },\n  }\n}\n');
    const r = await init(w, 'cursor');
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/\.cursor\/mcp\.json:4:3: not valid JSON/);
    expect(existsSync(join(w.project, '.cursor/hooks.json'))).toBe(false);
    expect(existsSync(join(w.rules, 'cursor.yaml'))).toBe(false);
  });

  it('a settings file with comments, which rewriting would drop', async () => {
    const w = world();
    const text = '{\n  // the theme I like\n  "theme": "GitHub"\n}\n';
    put(w, '.gemini/settings.json', text);
    const r = await init(w, 'gemini-cli');
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/\.gemini\/settings\.json:2:3: not valid JSON/);
    expect(readFileSync(join(w.project, '.gemini/settings.json'), 'utf8')).toBe(text);
  });

  it('a config.toml that is not TOML: file:line:col', async () => {
    const w = world();
    put(w, '.codex/config.toml', 'model = "x"\n[mcp_servers\n');
    const r = await init(w, 'codex');
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/\.codex\/config\.toml:2:\d+: not valid TOML/);
    expect(existsSync(join(w.project, '.codex/hooks.json'))).toBe(false);
  });

  it("another server under plangate's name, a hooks list that is not a list, a foreign Cline hook", async () => {
    const w = world();
    put(w, '.mcp.json', JSON.stringify({ mcpServers: { plangate: { command: 'node', args: ['my-own-plangate.js'] } } }));
    let r = await init(w, 'claude-code');
    expect(r.err).toMatch(/mcpServers\.plangate is another server; plangate will not replace it/);
    expect(existsSync(join(w.project, '.claude/settings.json'))).toBe(false);
    r = await init(w, 'claude-code', '--plangate-server', 'gate');
    expect(r.status, r.err).toBe(0);
    expect(json(w, '.mcp.json').mcpServers.plangate).toEqual({ command: 'node', args: ['my-own-plangate.js'] });
    expect(json(w, '.claude/settings.json').hooks.PreToolUse[0].hooks[0].command).toContain('--plangate-server gate');

    put(w, '.windsurf/hooks.json', JSON.stringify({ hooks: { pre_run_command: { command: 'x' } } }));
    r = await init(w, 'windsurf');
    expect(r.err).toMatch(/hooks\.pre_run_command is not an array/);

    put(w, '.clinerules/hooks/PreToolUse', '#!/bin/sh\n./my-guard.sh\n');
    r = await init(w, 'cline');
    expect(r.err).toMatch(/PreToolUse exists and is not plangate's/);
    expect(readFileSync(join(w.project, '.clinerules/hooks/PreToolUse'), 'utf8')).toBe('#!/bin/sh\n./my-guard.sh\n');
  });

  it("a settings file that is a symbolic link, or a settings directory that leads out of the project", async () => {
    const w = world();
    const elsewhere = join(w.root, 'elsewhere.json');
    writeFileSync(elsewhere, '{"keep": true}\n');
    mkdirSync(join(w.project, '.cursor'));
    symlinkSync(elsewhere, join(w.project, '.cursor', 'hooks.json'));
    let r = await init(w, 'cursor');
    expect(r.err).toMatch(/hooks\.json is a symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"keep": true}\n');
    const v = world();
    mkdirSync(join(v.root, 'outside'));
    symlinkSync(join(v.root, 'outside'), join(v.project, '.windsurf'));
    r = await init(v, 'windsurf');
    expect(r.err).toMatch(/its directory leads out of/);
    expect(readdirSync(join(v.root, 'outside'))).toEqual([]);
  });

  it('without --agent, with an unknown host, or with --from-mcp too', async () => {
    const w = world();
    let r = await cli(['--rules', w.rules, 'init', '--hook', 'cursor', '--project', w.project], { HOME: w.home, PATH: w.bin });
    expect(r.err).toMatch(/needs --agent SEAT/);
    r = await init(w, 'vim');
    expect(r.err).toMatch(/"vim" is not a host plangate knows; one of claude-code, codex/);
    r = await init(w, 'cursor', '--from-mcp');
    expect(r.status).not.toBe(0);
    r = await cli(['init'], { HOME: w.home, PATH: w.bin });
    expect(r.err).toMatch(/--from-mcp -- COMMAND… or --hook NAME --agent SEAT/);
    expect(snapshot(w.project)).toEqual({});
  });
});
