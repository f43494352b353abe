import { describeVariantShard } from './mutation.ts';

describeVariantShard(0);
