/**
 * ripgrep's `--type` names for the built-in engine: each name stands for globs matched against a
 * file's name. The list follows `rg --type-list` for common languages and formats; a name not
 * listed here is refused with ripgrep's wording.
 */
import picomatch from 'picomatch';

const TYPE_GLOBS: Readonly<Record<string, readonly string[]>> = {
  asm: ['*.S', '*.asm', '*.s'],
  bazel: ['*.BUILD', '*.bazel', '*.bazelrc', '*.bzl', 'BUILD', 'WORKSPACE'],
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  clojure: ['*.clj', '*.cljc', '*.cljs', '*.cljx'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  config: ['*.cfg', '*.conf', '*.config', '*.ini'],
  cpp: ['*.[ChH]', '*.[ChH].in', '*.[ch]pp', '*.[ch]pp.in', '*.[ch]xx', '*.[ch]xx.in', '*.cc', '*.cc.in', '*.hh', '*.hh.in', '*.inl'],
  cs: ['*.cs'],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss'],
  csv: ['*.csv'],
  dart: ['*.dart'],
  docker: ['*Dockerfile*'],
  elixir: ['*.eex', '*.ex', '*.exs'],
  erlang: ['*.erl', '*.hrl'],
  fsharp: ['*.fs', '*.fsi', '*.fsx'],
  go: ['*.go'],
  gradle: ['*.gradle'],
  groovy: ['*.gradle', '*.groovy'],
  haskell: ['*.c2hs', '*.cpphs', '*.hs', '*.hsc', '*.lhs'],
  html: ['*.ejs', '*.htm', '*.html'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  jinja: ['*.j2', '*.jinja', '*.jinja2'],
  // .cjs/.mjs (and .cts/.mts below) are in newer ripgrep releases than 13.
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  json: ['*.json', 'composer.lock'],
  jsonl: ['*.jsonl'],
  julia: ['*.jl'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  lock: ['*.lock', 'package-lock.json'],
  log: ['*.log'],
  lua: ['*.lua'],
  make: ['*.mak', '*.mk', '[Gg][Nn][Uu]makefile', '[Gg][Nn][Uu]makefile.am', '[Gg][Nn][Uu]makefile.in', '[Mm]akefile', '[Mm]akefile.am', '[Mm]akefile.in'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mkdn'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mkdn'],
  nix: ['*.nix'],
  objc: ['*.h', '*.m'],
  ocaml: ['*.ml', '*.mli', '*.mll', '*.mly'],
  perl: ['*.PL', '*.perl', '*.pl', '*.plh', '*.plx', '*.pm', '*.t'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.phtml'],
  protobuf: ['*.proto'],
  ps: ['*.cdxml', '*.ps1', '*.ps1xml', '*.psd1', '*.psm1'],
  py: ['*.py', '*.pyi'],
  r: ['*.R', '*.Rmd', '*.Rnw', '*.r'],
  rst: ['*.rst'],
  ruby: ['*.gemspec', '*.rb', '*.rbw', '.irbrc', 'Gemfile', 'Rakefile', 'config.ru'],
  rust: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.sbt', '*.scala'],
  sh: ['*.bash', '*.bashrc', '*.csh', '*.cshrc', '*.ksh', '*.kshrc', '*.sh', '*.tcsh', '*.zsh', '.bash_login', '.bash_logout', '.bash_profile', '.bashrc', '.cshrc', '.kshrc', '.login', '.logout', '.profile', '.tcshrc', '.zlogin', '.zlogout', '.zprofile', '.zshenv', '.zshrc', 'bash_login', 'bash_logout', 'bash_profile', 'bashrc', 'profile', 'zlogin', 'zlogout', 'zprofile', 'zshenv', 'zshrc'],
  sql: ['*.psql', '*.sql'],
  svg: ['*.svg'],
  swift: ['*.swift'],
  tex: ['*.bib', '*.cls', '*.dtx', '*.ins', '*.ltx', '*.sty', '*.tex'],
  tf: ['*.tf'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  txt: ['*.txt'],
  vim: ['*.vim'],
  xml: ['*.dtd', '*.rng', '*.sch', '*.xhtml', '*.xjb', '*.xml', '*.xml.dist', '*.xsd', '*.xsl', '*.xslt'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
};

export const KNOWN_FILE_TYPES: readonly string[] = Object.keys(TYPE_GLOBS);

/** A test on a file name, or undefined when ripgrep's table as we know it lacks the name. */
export function compileFileType(name: string): ((fileName: string) => boolean) | undefined {
  if (!Object.hasOwn(TYPE_GLOBS, name)) return undefined;
  return picomatch([...TYPE_GLOBS[name]!], { dot: true, nonegate: true, noextglob: true });
}

/** ripgrep's wording, so that both engines say the same. */
export function unknownTypeMessage(name: string): string {
  return `unrecognized file type: ${name}`;
}
