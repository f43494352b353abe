import { describeMutantShard } from './mutation.ts';

describeMutantShard(2);
