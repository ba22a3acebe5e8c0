// The course page: refetchable by its global id.
import { graphql } from "relay-runtime";

export const CoursePageQuery = graphql`
  query CoursePageQuery($id: Int!) {
    course(id: $id) {
      ...CourseDetails_course
    }
  }
`;

export const CourseDetails = graphql`
  fragment CourseDetails_course on Course @refetchable(queryName: "CourseDetailsRefetchQuery") {
    id
    courseNameChinese
    courseNameEnglish
    department
    teachingGoal
    teachingContent
    startDate
    endDate
    ...CourseRow_course
  }
`;
