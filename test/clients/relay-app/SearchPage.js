// Course search: a connection on Query, one per search term.
import { graphql } from "relay-runtime";

export const SearchPageQuery = graphql`
  query SearchPageQuery($q: String!) {
    ...SearchResults_query @arguments(q: $q)
  }
`;

export const SearchResults = graphql`
  fragment SearchResults_query on Query
  @refetchable(queryName: "SearchResultsPaginationQuery")
  @argumentDefinitions(q: { type: "String!" }, count: { type: "Int", defaultValue: 5 }, cursor: { type: "String" }) {
    courses(q: $q, first: $count, after: $cursor) @connection(key: "SearchResults_courses", filters: ["q"]) {
      totalCount
      edges {
        node {
          ...CourseRow_course
        }
      }
    }
  }
`;
