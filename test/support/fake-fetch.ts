// The old names of DocFetch's Graph helpers (test/support/doc-fetch.ts, the one fetch fake), kept
// for the network specs that still import them from here.
export {
  type DocCall as FakeCall,
  type DocFetch as FakeFetch,
  type DocReply as FakeReply,
  graphEndpoints as fakeEndpoints,
  graphFetch as fakeFetch,
  timeout as timeoutError,
} from './doc-fetch';
