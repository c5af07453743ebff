import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { childEnv, ROOT, runTs } from '../helpers/process';

/**
 * The operator documentation (README.md, docs/*.md) names only commands that exist: every
 * `npm run <script>` is a script of package.json, every `npm run cli -- <command>` a command the
 * CLI lists in --help; and it cites no file outside the repository. What each command does is
 * tested where the command is (tests/operations/, tests/foundation/).
 */
const files = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const texts = files.map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));
const scripts = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

describe('the documentation', () => {
  it('runs only npm scripts that package.json defines', () => {
    const unknown = texts.flatMap(({ file, text }) =>
      [...text.matchAll(/npm run (?:-s )?([\w:.-]+)/g)].map((m) => m[1]).filter((s) => !scripts.includes(s)).map((s) => `${file}: npm run ${s}`),
    );
    expect(unknown).toEqual([]);
  });

  it('names only CLI commands that npm run cli -- --help lists', async () => {
    const help = await runTs('src/cli.ts', ['--help'], childEnv());
    expect(help.code).toBe(0);
    const listed = new Set([...help.stdout.matchAll(/^ {2}([a-z]+:[a-z-]+|--help)\b/gm)].map((m) => m[1]));
    expect(listed.size).toBeGreaterThanOrEqual(9);
    const used = texts.flatMap(({ file, text }) => [...text.matchAll(/npm run (?:-s )?cli -- ([\w:-]+)/g)].map((m) => ({ file, command: m[1] })));
    expect(used.length).toBeGreaterThan(5);
    expect(used.filter((u) => !listed.has(u.command)).map((u) => `${u.file}: ${u.command}`)).toEqual([]);
  });

  it('cites no file outside the repository', () => {
    const outside = texts.flatMap(({ file, text }) => [...text.matchAll(/(?:\.\.\/)+[\w.-]+/g)].map((m) => `${file}: ${m[0]}`));
    expect(outside).toEqual([]);
  });

  it('keeps the README short: what it is, how to run it, the first admin, the links', () => {
    const readme = texts.find((t) => t.file === 'README.md')!.text;
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    for (const page of ['operations', 'api', 'realtime', 'security', 'benchmarks', 'contributing']) expect(readme).toContain(`(docs/${page}.md)`);
  });
});
