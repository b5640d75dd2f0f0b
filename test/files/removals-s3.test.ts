import { describeRemovals } from './removals-suite.js';

describeRemovals('s3');
