/**
 * @actions/core and @actions/github read the runner's variables (GITHUB_OUTPUT, INPUT_*,
 * GITHUB_EVENT_PATH, …) from process.env at the moment of each call. runAction takes its
 * environment as a parameter instead, since the demo and the tests run it in-process with an
 * environment of their own: each call into those packages runs with process.env swapped for that
 * environment. The call is synchronous, so nothing else runs while the swap lasts, and it is
 * undone before the call returns; an async call reads what it needs in its synchronous start.
 */
export function withRunnerEnv<T>(
  env: Readonly<Record<string, string | undefined>>,
  call: () => T,
): T {
  if (env === process.env) return call();
  const own = process.env;
  process.env = env;
  try {
    return call();
  } finally {
    process.env = own;
  }
}
