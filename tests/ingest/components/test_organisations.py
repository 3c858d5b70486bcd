"""incident_organisations: who ran the system, from rules and the trained NER."""


def organisations(case):
    return {m.name for m in case.mentions_of("Organisation")}


def test_a_possessive_names_the_company_inside_another_finding(extract):
    case = extract("# Payments down\n\n## Root cause\n\nSquare's services depend on internal DNS, and the DNS "
                   "servers failed under load after a firewall change.\n")
    assert "Square" in organisations(case)


def test_a_report_title_is_no_organisation_and_no_entity(extract):
    case = extract("Preliminary Post Incident Review (PIR) - Networking - Connectivity issues\n\n"
                   "Summary of impact: Between 09:00 and 10:00 UTC customers in East US saw dropped connections.\n\n"
                   "Root cause: A fiber cut reduced the capacity between two datacenters.\n")
    names = {m.mention for m in case.mentions}
    assert not any(name in ("PIR", "Post Incident Review", "Preliminary Post Incident Review") for name in names)

