import { describeUploads } from './uploads-suite.js';

describeUploads('fs');
