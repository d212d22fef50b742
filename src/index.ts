/**
 * The action's entry point (action.yml `main: dist/index.js`). It starts the git processes the
 * first model request needs, then loads the rest of the bundle while they run (github/prefetch.ts).
 */
import { prefetchGitOutput } from './github/prefetch.js';

prefetchGitOutput(process.env.GITHUB_WORKSPACE || process.cwd());
const { run } = await import('./github/main.js');
await run();
