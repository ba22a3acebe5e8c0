// Community Packs, most starred first.
import { graphql } from "relay-runtime";

export const PacksPageQuery = graphql`
  query PacksPageQuery($first: Int!) {
    hubPacks(sort: stars, first: $first) {
      edges {
        node {
          id
          name
          summary
          starCount
          installCount
          latestVersion
          versions {
            version
            publishedAt
          }
        }
      }
    }
  }
`;
