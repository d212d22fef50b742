import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashFileOperands } from '../../../../src/tools/builtin/bash/file-operands.js';
import type { FileOperand } from '../../../../src/tools/tool.js';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

const HOME = '/home/tester';

describe('bashFileOperands', () => {
  let workspace: Workspace;

  beforeAll(() => {
    workspace = makeWorkspace('ci-agent-operands-');
    for (const name of ['.env', 'a.txt', 'prod.env']) writeFileSync(workspace.path(name), 'x\n');
    mkdirSync(workspace.path('sub'));
    writeFileSync(workspace.path('sub/b.txt'), 'x\n');
    symlinkSync(workspace.path('.env'), workspace.path('link'));
  });
  afterAll(() => workspace.cleanup());

  /** Operands as `<access> [pattern ]<path>`, the workspace shown as `.`, sorted. */
  const operands = (command: string, env: Record<string, string> = {}, cwd?: string) =>
    bashFileOperands(command, { cwd: cwd ?? workspace.root, homeDir: HOME, env })
      .map((operand: FileOperand) => {
        const path = operand.path.replace(workspace.root, '.');
        const kind = operand.pattern ? `pattern${operand.pattern.dot ? '(dot)' : ''} ` : '';
        return `${operand.access} ${kind}${path}`;
      })
      .sort();

  describe('when a known program names files', () => {
    // [command, operands]
    const table: Array<[string, string[]]> = [
      ['cat .env', ['read ./.env']],
      ['cat ./sub/../.env', ['read ./.env']],
      ['cat a.txt sub/b.txt', ['read ./a.txt', 'read ./sub/b.txt']],
      ['head -n 5 .env', ['read ./.env']],
      ['head -n5 .env', ['read ./.env']],
      ['tail -f --lines 3 .env', ['read ./.env']],
      ['cat -- -n', ['read ./-n']],
      ['cat - < a.txt', ['read ./a.txt']],
      ['grep KEY .env', ['read ./.env']],
      ['grep -rn KEY sub', ['read ./sub']],
      ['grep -e KEY -e OTHER .env', ['read ./.env']],
      ['grep -f patterns.txt .env', ['read ./.env', 'read ./patterns.txt']],
      ['grep .env a.txt', ['read ./a.txt']],
      ['rg -g "*.ts" KEY .env', ['read ./.env']],
      ['sed -n 1p .env', ['read ./.env']],
      ['sed -e 1p -n .env', ['read ./.env']],
      ['sed -i s/a/b/ a.txt', ['read ./a.txt', 'write ./a.txt']],
      ['sed -i.bak s/a/b/ a.txt', ['read ./a.txt', 'write ./a.txt']],
      ["awk -F: '{print $1}' v=1 .env", ['read ./.env']],
      ['awk -f prog.awk .env', ['read ./.env', 'read ./prog.awk']],
      ['jq .key config.json', ['read ./config.json']],
      ['jq --arg k v --slurpfile s .env .x in.json', ['read ./.env', 'read ./in.json']],
      ['jq -n --args .x a.txt', []],
      ['wc -l .env', ['read ./.env']],
      ['diff a.txt .env', ['read ./.env', 'read ./a.txt']],
      ['sort -o out.txt a.txt', ['read ./a.txt', 'write ./out.txt']],
      ['uniq a.txt out.txt', ['read ./a.txt', 'write ./out.txt']],
      ['base64 .env', ['read ./.env']],
      ['sha256sum .env', ['read ./.env']],
      ['xxd .env dump.hex', ['read ./.env', 'write ./dump.hex']],
      ['source .env', ['read ./.env']],
      ['. .env extra', ['read ./.env']],
      ['dd if=.env of=copy bs=1', ['read ./.env', 'write ./copy']],
      ['tee .env', ['write ./.env']],
      ['tee -a log.txt', ['write ./log.txt']],
      ['touch -r a.txt .env', ['read ./a.txt', 'write ./.env']],
      ['rm -rf sub .env', ['write ./.env', 'write ./sub']],
      ['mkdir -p -m 700 newdir', ['write ./newdir']],
      ['chmod 600 .env', ['write ./.env']],
      ['chmod --reference=a.txt .env', ['read ./a.txt', 'write ./.env']],
      ['cp .env /tmp/x', ['read ./.env', 'write /tmp/x', 'write /tmp/x/.env']],
      ['cp -t sub a.txt', ['read ./a.txt', 'write ./sub', 'write ./sub/a.txt']],
      ['mv a.txt sub/', ['write ./a.txt', 'write ./sub', 'write ./sub/a.txt']],
      ['ln -s .env alias', ['write ./.env', 'write ./alias', 'write ./alias/.env']],
    ];
    it.each(table)('%s → %j', (command, expected) => {
      expect(operands(command)).toEqual([...expected].sort());
    });
  });

  describe('when files are named by redirections', () => {
    const table: Array<[string, string[]]> = [
      ['cat < .env', ['read ./.env']],
      ['echo x > .env', ['write ./.env']],
      ['echo x >> log.txt 2> err.txt', ['write ./err.txt', 'write ./log.txt']],
      ['echo x &> all.txt', ['write ./all.txt']],
      ['echo x >& all.txt', ['write ./all.txt']],
      ['echo x 2>&1 >&2', []],
      ['echo x > /dev/null', ['write /dev/null']],
      ['exec 3<> .env', ['read ./.env', 'write ./.env']],
      ['cat <<EOF\n.env\nEOF', []],
      ['{ cat; } < .env', ['read ./.env']],
    ];
    it.each(table)('%j → %j', (command, expected) => {
      expect(operands(command)).toEqual([...expected].sort());
    });
  });

  describe('when a program runs inside another command', () => {
    const table: Array<[string, string[]]> = [
      ['echo $(cat .env)', ['read ./.env']],
      ['echo `head .env`', ['read ./.env']],
      ["bash -c 'cat .env'", ['read ./.env']],
      ["eval 'cat .env'", ['read ./.env']],
      ['diff <(cat .env) a.txt', ['read ./.env', 'read ./a.txt']],
      ['ls && cat .env | wc -l', ['read ./.env']],
      ['timeout 5 cat .env', ['read ./.env']],
      ['sudo -u root head .env', ['read ./.env']],
      ['env FOO=1 nice -n 5 tail .env', ['read ./.env']],
      ['/bin/cat .env', ['read ./.env']],
      ['echo cat .env', []],
      ['git show HEAD:.env', []],
      ['python3 -c "print(open(\'.env\').read())"', []],
    ];
    it.each(table)('%s → %j', (command, expected) => {
      expect(operands(command)).toEqual([...expected].sort());
    });
  });

  describe('when words expand at run time', () => {
    const table: Array<[string, string[]]> = [
      ['cat *.env', ['read pattern ./*.env', 'read ./prod.env']],
      ['cat .e*', ['read pattern ./.e*', 'read ./.env']],
      // Without globstar, bash reads ** as *: one directory level.
      ['cat ./**/*.txt', ['read pattern ./**/*.txt', 'read ./sub/b.txt']],
      ['cat .{env,x}', ['read pattern ./.{env,x}', 'read ./.env']],
      ['cat "*.env"', ['read ./*.env']],
      ['cat ~/.ssh/id_rsa', [`read ${HOME}/.ssh/id_rsa`]],
      ['cat "$F"', []],
      ['cat $F', []],
      // The unknown directory may be a dot directory (`.github`, `.claude`).
      ['cat "$DIR/.env"', ['read pattern(dot) /**/.env']],
      ['cat $(pwd)/.env', ['read pattern(dot) /**/.env']],
      ['cat "$D/sub/b.txt"', ['read pattern(dot) /**/sub/b.txt']],
      // bash's $PWD and $OLDPWD tildes; $PWD itself.
      ['cat ~+/.env', ['read ./.env']],
      ['cat "$PWD/.env"', ['read ./.env']],
      ['cat ${PWD}/sub/b.txt', ['read ./sub/b.txt']],
      ['cat ~-/.env', ['read pattern(dot) /**/.env']],
      ['cat "$OLDPWD/.env"', ['read pattern(dot) /**/.env']],
      ['cat ${X}.env', []],
      ['cat $((1+1))', []],
    ];
    it.each(table)('%s → %j', (command, expected) => {
      expect(operands(command)).toEqual([...expected].sort());
    });

    it('lets * and ? match a leading dot when the command turns dotglob on', () => {
      expect(operands('shopt -s dotglob; cat *.env')).toEqual(
        ['read ./.env', 'read ./prod.env', 'read pattern(dot) ./*.env'].sort(),
      );
    });

    it('lets * and ? match a leading dot when the environment turns dotglob on', () => {
      expect(operands('cat *env', { BASHOPTS: 'dotglob' })).toContain('read ./.env');
      expect(operands('cat *env', { GLOBIGNORE: 'x' })).toContain('read ./.env');
      expect(operands('cat *env')).not.toContain('read ./.env');
    });
  });

  describe('when paths lead elsewhere', () => {
    it('adds the target of a symlink', () => {
      expect(operands('cat link')).toEqual(['read ./.env', 'read ./link']);
    });

    it('resolves against the Bash cwd', () => {
      expect(operands('cat ../.env', {}, workspace.path('sub'))).toEqual(['read ./.env']);
    });

    it('resolves against every directory a cd moves to', () => {
      expect(operands('cd sub && cat ../.env b.txt')).toEqual(
        [
          `read ${join(workspace.root, '..', '.env')}`,
          'read ./.env',
          'read ./b.txt',
          'read ./sub/b.txt',
        ].sort(),
      );
    });

    it('takes a bare cd for the home directory', () => {
      expect(operands('cd; cat .env')).toContain(`read ${HOME}/.env`);
    });
  });

  describe('when a cd goes where only run time or a glob tells', () => {
    const table: Array<[string, string[]]> = [
      // A glob is placed as bash expands it: its literal directory and what it matches now.
      ['cd su[b] && cat b.txt', ['read ./b.txt', 'read ./sub/b.txt']],
      ['cd "$D" && cat b.txt', ['read ./b.txt', 'read pattern(dot) /**/b.txt']],
      ['cd $(echo sub) && cat .env', ['read ./.env', 'read pattern(dot) /**/.env']],
      ['cd - && cat .env', ['read ./.env', 'read pattern(dot) /**/.env']],
    ];
    it.each(table)('%s → %j', (command, expected) => {
      expect(operands(command)).toEqual([...expected].sort());
    });

    it('takes a relative word in an unknown directory under CDPATH', () => {
      expect(operands('cd x && cat .env', { CDPATH: '/elsewhere' })).toEqual([
        'read ./.env',
        'read pattern(dot) /**/.env',
      ]);
    });
  });

  describe('when a removal names what only run time knows', () => {
    const removals = (command: string, cwd?: string) =>
      bashFileOperands(command, { cwd: cwd ?? workspace.root, homeDir: HOME, env: {} })
        .filter((operand) => operand.removes)
        .map((operand) => operand.path.replace(workspace.root, '.'));

    it('gives a recursive removal of an unknown directory as /*', () => {
      expect(removals('H=$HOME; rm -rf "$H"')).toEqual(['/*']);
      expect(removals('cd "$D" && rm -rf .')).toContain('/*');
    });

    it('resolves $PWD and ~+ to the directory the command runs in', () => {
      expect(removals('rm -rf -- "$PWD"')).toEqual(['.']);
      expect(removals('cd ~ && rm -rf ~+')).toEqual(['.', HOME]);
    });

    it('leaves a plain removal of an unknown file unplaced', () => {
      expect(removals('rm -f "$TMPFILE"')).toEqual([]);
    });
  });

  describe('when the command does not parse', () => {
    it('takes every word for a file read', () => {
      expect(operands('if true; then cat .env; fi')).toEqual(
        [
          'read ./.env',
          'read ./cat',
          'read ./fi',
          'read ./if',
          'read ./then',
          'read ./true',
        ].sort(),
      );
    });

    it('keeps patterns and names in unknown directories', () => {
      expect(operands('for f in .e*; do cat "$D/.env"; done')).toEqual(
        expect.arrayContaining(['read ./.env', 'read pattern ./.e*', 'read pattern(dot) /**/.env']),
      );
    });
  });
});
