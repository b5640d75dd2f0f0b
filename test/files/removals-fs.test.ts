import { describeRemovals } from './removals-suite.js';

describeRemovals('fs');
