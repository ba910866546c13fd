import { gradedTests } from './graded';

gradedTests('softmax');
