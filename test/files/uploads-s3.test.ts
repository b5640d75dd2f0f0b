import { describeUploads } from './uploads-suite.js';

describeUploads('s3');
