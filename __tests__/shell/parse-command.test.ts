import { describe, expect, it } from 'vitest';
import { allCommands, parseCommand } from '../../src/shell/parse-command.js';
import type { SimpleCommand } from '../../src/shell/types.js';

function commandsOf(source: string): SimpleCommand[] {
  const result = parseCommand(source);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(source)} to parse: ${result.reason}`);
  return result.commands;
}

/** Each command (nested ones included) as its argv joined by spaces. */
function flatArgv(source: string): string[] {
  return allCommands(commandsOf(source)).map((command) => command.argv.join(' '));
}

describe('parseCommand', () => {
  describe('when splitting a command line into simple commands', () => {
    it.each([
      ['ls', ['ls']],
      ['ls -la  src', ['ls -la src']],
      ['a && b || c; d | e |& f & g\nh', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
      ['ls &', ['ls']],
      ['ls;', ['ls']],
      ['! grep -q x f', ['grep -q x f']],
      ['(cd sub && ls) | wc -l', ['cd sub', 'ls', 'wc -l']],
      ['{ ls; pwd; }', ['ls', 'pwd']],
      ['ls # comment ; rm x', ['ls']],
      ['ls \\\n -la', ['ls -la']],
      ['ls &&\n pwd', ['ls', 'pwd']],
      ['ls |\n wc', ['ls', 'wc']],
    ])('%j runs %j', (source, expected) => {
      expect(flatArgv(source)).toEqual(expected);
    });
  });

  describe('when removing quotes', () => {
    it.each([
      [`echo 'a b' "c d" e\\ f`, ['echo', 'a b', 'c d', 'e f']],
      [`echo "say \\"hi\\"" 'it''s'`, ['echo', 'say "hi"', 'its']],
      [`echo $'tab\\there' $'\\x41\\101'`, ['echo', 'tab\there', 'AA']],
      [`echo "$HOME" '$HOME'`, ['echo', '$HOME', '$HOME']],
      [`echo a#b`, ['echo', 'a#b']],
      [`echo "line\\\ncontinued"`, ['echo', 'linecontinued']],
    ])('%j has argv %j', (source, argv) => {
      expect(commandsOf(source)[0]?.argv).toEqual(argv);
    });
  });

  describe('when describing words', () => {
    it.each([
      ['plain', [], false],
      ['"$X"', ['parameter'], true],
      ['pre-$X', ['parameter'], false],
      ['${X:-a}', ['parameter'], true],
      ['*.ts', ['glob'], true],
      ['src/*.ts', ['glob'], false],
      ['[ab]c', ['glob'], true],
      ['[', [], false],
      ['{a,b}', ['brace'], true],
      ['~/x', ['tilde'], false],
      ['$(date)', ['command'], true],
      ['$((1+2))', ['arithmetic'], true],
      ['$[1+2]', ['arithmetic'], true],
      ["'$X*'", [], false],
    ])('%j has expansions %j, leadingDynamic %s', (raw, expansions, leadingDynamic) => {
      const word = commandsOf(`echo ${raw}`)[0]?.words[1];
      expect(word).toMatchObject({ raw, expansions, leadingDynamic });
    });
  });

  describe('when reading assignments and redirections', () => {
    it('separates leading assignments from the command', () => {
      const [command] = commandsOf('A=1 B="two words" env');
      expect(command?.argv).toEqual(['env']);
      expect(command?.assignments.map(({ name, value }) => [name, value.value])).toEqual([
        ['A', '1'],
        ['B', 'two words'],
      ]);
    });

    it('keeps a bare assignment as a command without words', () => {
      expect(commandsOf('X=1')[0]).toMatchObject({ argv: [], assignments: [{ name: 'X' }] });
    });

    it('reads an assignment-looking word after the command name as an argument', () => {
      expect(commandsOf('make X=1')[0]?.argv).toEqual(['make', 'X=1']);
    });

    it.each([
      ['ls > out', [null, '>', 'out']],
      ['ls 2>&1', [2, '>&', '1']],
      ['ls 2>/dev/null', [2, '>', '/dev/null']],
      ['ls &>> log', [null, '&>>', 'log']],
      ['ls >| f', [null, '>|', 'f']],
      ['cat < in', [null, '<', 'in']],
      ['cat <<< "a b"', [null, '<<<', 'a b']],
      ['cat <<-EOF\n\tx\n\tEOF', [null, '<<-', 'EOF']],
      ['cat 3<> f', [3, '<>', 'f']],
      ['ls file2>out', [null, '>', 'out']],
    ])('%j redirects %j', (source, [fd, operator, target]) => {
      const [redirection] = commandsOf(source)[0]?.redirections ?? [];
      expect(redirection).toMatchObject({ fd, operator, target: { value: target } });
    });

    it('copies a group redirection onto every command of the group', () => {
      const commands = commandsOf('(ls; pwd) > out');
      expect(commands.map((command) => command.redirections[0]?.target.value)).toEqual([
        'out',
        'out',
      ]);
      expect(commands.every((command) => command.subshell)).toBe(true);
    });

    it('keeps the source text of each command, redirections included', () => {
      expect(commandsOf('ls -la 2>&1 | grep "x y"').map((command) => command.text)).toEqual([
        'ls -la 2>&1',
        'grep "x y"',
      ]);
    });
  });

  describe('when a command contains other commands', () => {
    it('parses a shell argument inside backticks once', () => {
      const [outer] = commandsOf('echo `eval ls`');
      expect(outer?.nested[0]?.commands[0]?.nested.map((script) => script.origin)).toEqual([
        'eval',
      ]);
    });

    it.each([
      ['cat $(rm -rf x)', 'command-substitution', 'rm -rf x'],
      ['echo "$(whoami)"', 'command-substitution', 'whoami'],
      ['echo ${a:-$(id)}', 'command-substitution', 'id'],
      ['echo $(( $(id -u) + 1 ))', 'command-substitution', 'id -u'],
      ['echo $[ $(id -u) + 1 ]', 'command-substitution', 'id -u'],
      ['echo `rm x`', 'backticks', 'rm x'],
      ['echo "`rm x`"', 'backticks', 'rm x'],
      ['diff <(ls a) b', 'process-substitution', 'ls a'],
      ['tee >(wc -l)', 'process-substitution', 'wc -l'],
      ['cat < <(ls)', 'process-substitution', 'ls'],
      ['cat <<EOF\n$(rm x)\nEOF', 'command-substitution', 'rm x'],
      ["bash -c 'rm x'", 'shell-argument', 'rm x'],
      ["sh -ec 'rm x'", 'shell-argument', 'rm x'],
      ["bash -o pipefail -c 'rm x'", 'shell-argument', 'rm x'],
      ["timeout 5 bash -c 'rm x'", 'shell-argument', 'rm x'],
      ["find . -exec sh -c 'rm x' ';'", 'shell-argument', 'rm x'],
      ["eval 'rm x'", 'eval', 'rm x'],
      ['eval rm x', 'eval', 'rm x'],
    ])('%j nests %s running %j', (source, origin, inner) => {
      const [outer] = commandsOf(source);
      expect(outer?.nested[0]?.origin).toBe(origin);
      expect(outer?.nested[0]?.commands.map((command) => command.argv.join(' '))).toEqual([inner]);
    });

    it('follows nesting to any depth in allCommands', () => {
      expect(flatArgv(`bash -c "echo \\$(eval 'rm x')"`)).toEqual([
        "bash -c echo $(eval 'rm x')",
        "echo $(eval 'rm x')",
        'eval rm x',
        'rm x',
      ]);
    });

    it('does not look into a quoted here-document', () => {
      expect(flatArgv("cat <<'EOF'\n$(rm x)\nEOF")).toEqual(['cat']);
    });

    it('does not treat a shell run on a script file as nested code', () => {
      expect(commandsOf('bash script.sh')[0]?.nested).toEqual([]);
    });
  });

  describe('when the command is outside the supported subset', () => {
    it.each([
      ['for f in *; do echo $f; done', 'for'],
      ['if true; then ls; fi', 'if'],
      ['while true; do ls; done', 'while'],
      ['case $x in a) ls;; esac', 'case'],
      ['[[ -f x ]]', '[['],
      ['(( x++ ))', 'arithmetic'],
      ['f() { ls; }', '('],
      ['a=(1 2)', '('],
      ["echo 'open", 'single quote'],
      ['echo "open', 'double quote'],
      ['echo `open', 'backtick'],
      ['echo $(open', ')'],
      ['echo ${open', '${'],
      ['ls |', 'expected a command'],
      ['ls &&', 'must follow'],
      ['; ls', ';'],
      ['ls ;; pwd', ';;'],
      ['(ls', ')'],
      ['{ ls; ', '}'],
      ['()', 'empty'],
      ['ls >', 'missing target'],
      ['cat <<EOF\nno end', 'not terminated'],
      ['bash -c "$SCRIPT"', 'built at run time'],
      ['eval "$CODE"', 'eval'],
      ["bash -c 'for x in y; do :; done'", 'bash -c'],
      ['echo ${x@P}', 'prompt expansion'],
    ])('%j is refused (%s)', (source, reasonPart) => {
      const result = parseCommand(source);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain(reasonPart);
    });

    it.each([
      ['subshells', `${'( '.repeat(10_000)}ls${' )'.repeat(10_000)}`],
      ['parameter expansions', `echo ${'${'.repeat(10_000)}`],
      ['command substitutions', `echo ${'$('.repeat(10_000)}`],
    ])('refuses %s nested too deeply without exhausting the stack', (_kind, source) => {
      const result = parseCommand(source);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain('nested too deeply');
    });

    it('refuses a command too long to check', () => {
      expect(parseCommand(`echo ${'a'.repeat(100_000)}`).ok).toBe(false);
    });

    it('reads a long run of brackets in linear time', () => {
      const started = Date.now();
      expect(parseCommand(`echo ${'['.repeat(50_000)}`).ok).toBe(true);
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    it('refuses shell scripts nested too deeply', () => {
      let source = 'ls';
      for (let depth = 0; depth < 12; depth++) source = `eval ${JSON.stringify(source)}`;
      const result = parseCommand(source);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain('deeply');
    });
  });
});

describe('allCommands', () => {
  it('lists outer commands before the commands nested in them', () => {
    const commands = commandsOf('echo $(a) && b');
    expect(allCommands(commands).map((command) => command.argv[0])).toEqual(['echo', 'a', 'b']);
  });
});
