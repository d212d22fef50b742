import { describe, expect, it } from 'vitest';
import { bashRuleMatches, compileBashRule } from '../../src/permissions/bash-rules.js';
import { analyzeBashCommand } from '../../src/permissions/bash-views.js';

type Kind = 'allow' | 'deny' | 'ask';
const matches = (specifier: string, command: string, kind: Kind) =>
  bashRuleMatches(compileBashRule(specifier), analyzeBashCommand(command), kind);

describe('bashRuleMatches', () => {
  describe('when allowing', () => {
    // [specifier, command, expected]
    const table: Array<[string, string, boolean]> = [
      // compound and nested: every part must match
      ['echo:*', 'echo hi && echo there', true],
      ['echo:*', 'echo hi\necho there', true],
      ['echo:*', 'echo hi && rm x', false],
      ['echo:*', 'echo $(echo nested)', true],
      ['echo:*', 'echo $(rm x)', false],
      ['echo:*', 'echo `date`', false],
      ['echo:*', 'echo <(rm x)', false],
      ['echo:*', 'bash -c "echo x"', false],
      ['echo:*', 'eval echo x', false],
      ['echo:*', 'echo x | sh', false],
      ['echo *', 'echo x; rm y', false],
      // wrappers seen through
      ['echo:*', 'timeout 5 echo x', true],
      ['echo:*', 'timeout -s KILL -k 2 5s echo x', true],
      ['echo:*', 'timeout --signal=KILL 5 echo x', true],
      ['echo:*', 'timeout --weird 5 echo x', false],
      ['echo:*', 'timeout $T echo x', false],
      ['echo:*', 'nice -n 5 echo x', true],
      ['echo:*', 'nice -5 echo x', true],
      ['echo:*', 'nohup time -p echo x', true],
      ['echo:*', 'stdbuf -oL -e0 echo x', true],
      ['echo:*', 'command echo x', true],
      ['echo:*', 'command -v echo', false],
      ['echo:*', 'builtin echo x', true],
      ['echo:*', 'noglob echo x', true],
      ['echo:*', 'xargs echo', true],
      ['echo:*', 'xargs -n1 echo', false],
      ['echo:*', './timeout 5 echo x', false],
      ['timeout 5 npm test', 'timeout 5 npm test', true],
      // launchers are seen through by deny rules only
      ['echo:*', 'env echo x', false],
      ['echo:*', 'sudo echo x', false],
      // paths and computed names
      ['echo:*', '/bin/echo x', false],
      ['echo:*', './echo x', false],
      ['echo:*', '$CMD x', false],
      ['echo:*', '/bin/ec? x', false],
      ['echo:*', '"echo x"', false],
      // assignments only when the rule spells them out
      ['echo:*', 'FOO=1 echo x', false],
      ['git status', 'PATH=. git status', false],
      ['FOO=1 echo:*', 'FOO=1 echo x', true],
      ['FOO=1 echo:*', 'FOO="1 echo" rm x', false],
      // quoting is seen through
      ['git status', 'git "status"', true],
      ['echo:*', "ec'h'o x", true],
      ['git commit -m "wip"', 'git commit -m "wip"', true],
      // redirections
      ['echo:*', 'echo x > out.txt', false],
      ['echo:*', 'echo x >> out.txt', false],
      ['echo:*', 'echo x &> out.txt', false],
      ['echo:*', 'echo x >& out.txt', false],
      ['echo:*', 'echo x <> out.txt', false],
      ['echo:*', '{ echo x; } > out.txt', false],
      ['echo:*', 'echo x > $F', false],
      ['echo:*', 'echo x < /dev/tcp/example.com/80', false],
      ['echo:*', 'echo x > /dev/null', true],
      ['echo:*', 'echo x > /dev/null 2>&1', true],
      ['echo:*', 'echo x >&2', true],
      ['echo:*', 'echo x <<< hi', true],
      ['echo * > out.txt', 'echo x > out.txt', true],
      ['echo * > out.txt', 'echo x >out.txt', true],
      ['echo * > out.txt', 'echo x > other.txt', false],
      ['echo * > out.txt', 'echo x > .bashrc > out.txt', false],
      ['echo * > out.txt', 'echo x', false],
      ['npm test > log.txt 2>&1', 'npm test > log.txt 2>&1', true],
      // find's writing and running actions never match a wildcard rule
      ['find *', 'find . -name "*.ts"', true],
      ['find *', 'find . -delete', false],
      ['find *', 'find . -exec rm {} \\;', false],
      ['find *', 'find . -fprint out.txt', false],
      ['find *', 'find . $ACTION', false],
      ['find . -delete', 'find . -delete', true],
      // what cannot be parsed: only an exact rule equal to the whole command
      ['for *', 'for x in a; do echo $x; done', false],
      ['echo:*', 'for x in a; do echo $x; done', false],
      ['for x in a; do echo $x; done', 'for x in a;  do echo $x; done', true],
      ['echo:*', '', false],
    ];
    it.each(table)('%j allows %j → %s', (specifier, command, expected) => {
      expect(matches(specifier, command, 'allow')).toBe(expected);
    });
  });

  describe('when denying or asking', () => {
    const table: Array<[string, string, boolean]> = [
      ['rm:*', 'echo x; rm y', true],
      ['rm:*', 'echo $(rm y)', true],
      ['rm:*', 'echo "$(echo `rm y`)"', true],
      ['rm:*', 'bash -c "rm y"', true],
      ['rm:*', 'sh -c \'bash -c "rm y"\'', true],
      ['rm:*', 'eval rm y', true],
      ['rm:*', 'cat <<EOF\n$(rm y)\nEOF', true],
      ['rm:*', '/bin/rm y', true],
      ['rm:*', 'r"m" y', true],
      ['rm:*', "$'\\x72m' y", true],
      ['rm:*', '\\rm y', true],
      ['rm:*', 'FOO=1 BAR=2 rm y', true],
      ['rm:*', 'timeout 5 rm y', true],
      ['rm:*', 'timeout --weird 5 rm y', true],
      ['rm:*', 'nohup nice -n 5 rm y', true],
      ['rm:*', 'env -i A=1 rm y', true],
      ['rm:*', '/usr/bin/env rm y', true],
      ['rm:*', 'sudo -u root rm y', true],
      ['rm:*', 'watch -n1 "rm y"', true],
      ['rm:*', 'ionice -c 3 rm y', true],
      ['rm:*', 'setsid rm y', true],
      ['rm:*', 'exec rm y', true],
      ['rm:*', 'xargs -0 rm', true],
      ['rm:*', 'find . -exec rm {} \\;', true],
      // fail closed: what runs cannot be known
      ['rm:*', 'for f in a; do echo; done', true],
      ['rm:*', '$CMD y', true],
      ['rm:*', '/bin/r? y', true],
      ['rm:*', '{rm,y}', true],
      ['rm:*', 'sudo $CMD', true],
      ['rm:*', 'echo rm y | sh', true],
      ['rm:*', 'bash <<< "rm y"', true],
      // but an argument is not a command
      ['rm:*', 'echo rm y', false],
      ['rm:*', 'git commit -m "rm y"', false],
      ['rm:*', 'sh script.sh', false],
      ['rm:*', 'env A=$B node "$SCRIPT"', false],
      // git's global options are skipped
      ['git push:*', 'git -C /repo push origin', true],
      ['git push:*', 'git -c user.name=x --no-pager push', true],
      ['git push:*', 'git log', false],
      // the wrapper itself still matches
      ['timeout:*', 'timeout 5 rm y', true],
      // redirections named in a deny rule
      ['echo * > .bashrc', 'echo x >.bashrc', true],
      ['* > .bashrc', 'printf x > .bashrc', true],
    ];
    it.each(table)('%j denies %j → %s', (specifier, command, expected) => {
      expect(matches(specifier, command, 'deny')).toBe(expected);
      expect(matches(specifier, command, 'ask')).toBe(expected);
    });
  });
});
