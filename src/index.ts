export {run} from '@oclif/core'
