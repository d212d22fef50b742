/** THE list of endpoints the fake GitHub implements; any other valid route answers 501. */
import type { Route } from '../http.js';
import { actionsRoutes } from './actions.js';
import { issueRoutes } from './issues.js';
import { pullRoutes } from './pulls.js';
import { repoRoutes } from './repos.js';
import { userRoutes } from './users.js';

export const routes: readonly Route[] = [
  ...issueRoutes,
  ...pullRoutes,
  ...repoRoutes,
  ...actionsRoutes,
  ...userRoutes,
];
