/**
 * `npm run bench`: every benchmark, one after the other. Results and the commands that produced
 * them are written down in docs/BENCHMARKS.md. Run one alone with `npx tsx bench/<name>.ts`.
 */
import { runActionStartupBench } from './action-startup.js';
import { runBashCallBench } from './bash-call.js';
import { runCliSessionBench } from './cli-session.js';
import { runContextBench } from './context.js';
import { runDecisionBench } from './decision.js';
import { runDispatchBench } from './dispatch.js';
import { runGlobBench } from './glob.js';
import { runGrepBench } from './grep.js';
import { runGrepBacktrackingBench } from './grep-backtracking.js';
import { runHooksBench } from './hooks.js';
import { runMcpBench } from './mcp.js';
import { runProcessScopeBench } from './process-scope.js';
import { runReadLargeBench } from './read-large.js';
import { runSandboxCallBench } from './sandbox-call.js';
import { runSandboxNetworkBench } from './sandbox-network.js';
import { runStreamingBench } from './streaming.js';

const only = process.argv.slice(2);
const benches: Array<[string, () => Promise<unknown>]> = [
  ['dispatch', runDispatchBench],
  ['streaming', runStreamingBench],
  ['cli-session', runCliSessionBench],
  ['decision', runDecisionBench],
  ['grep', runGrepBench],
  ['grep-backtracking', runGrepBacktrackingBench],
  ['glob', runGlobBench],
  ['read-large', runReadLargeBench],
  ['hooks', runHooksBench],
  ['action-startup', runActionStartupBench],
  ['mcp', runMcpBench],
  ['context', runContextBench],
  ['process-scope', runProcessScopeBench],
  ['bash-call', runBashCallBench],
  ['sandbox-network', runSandboxNetworkBench],
  ['sandbox-call', runSandboxCallBench],
];
for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`\n=== ${name}`);
  await run();
}
