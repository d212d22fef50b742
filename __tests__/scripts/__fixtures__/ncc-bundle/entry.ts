// An entry with a top-level await and a lazy part, as the action's entry has.
import { greeting } from './greeting.js';

const { shout } = await import('./lazy.js');
console.log(shout(greeting()));
