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



PRODUCT_AND_COMPANY = """# Ingest crash loop at Honeycomb

Honeycomb runs Shepherd, the service that accepts customer events, and Refinery, a sampling cluster.
On Tuesday Shepherd ran out of memory, and the Refinery nodes crashed under the extra load. Shepherd
hosts were killed and restarted every few minutes while Refinery's queue dropped traces. Contention
in Shepherd's schema cache held every worker behind one lock. Honeycomb's engineers added Refinery
hosts, and Honeycomb said the ingest delay lasted two hours.
"""


def test_a_name_used_as_a_system_is_no_organisation(extract):
    """The NER calls both Shepherd and Refinery ORG; the write-up uses them as systems ("Shepherd
    hosts", "Shepherd's schema cache", "the Refinery nodes") and never as a company."""
    found = organisations(extract(PRODUCT_AND_COMPANY))
    assert "Honeycomb" in found
    assert not {"Shepherd", "Refinery"} & found, found


def test_we_at_a_name_is_the_author_organisation(extract):
    """Said once and mid-sentence, a name the NER alone would not keep; "we at" or "here at" says
    the write-up's authors work there."""
    found = organisations(extract("# Dropped telemetry\n\nOn 6 November we at Quillfeather turned away a few percent "
                                  "of the events our customers sent. Here at Brambleworks the pager stayed quiet.\n"))
    assert {"Quillfeather", "Brambleworks"} <= found, found
    assert not any(name.startswith(("at ", "Here")) for name in found), found


def test_what_a_name_owns_makes_it_a_company(extract):
    """"Quillfeather's servers": said once, deep in the text, a possessive before what a company
    runs names the company; "the Redis server" names none."""
    text = ("# Stolen funds\n\n" + "The attacker prepared for weeks before the day of the theft. " * 12
            + "They never touched Quillfeather's servers, and the Redis server stayed healthy.\n")
    found = organisations(extract(text))
    assert "Quillfeather" in found, found
    assert "Redis" not in found, found


def test_a_company_that_goes_by_its_domain_is_found_when_it_acts(extract):
    """"bunny.net's DNS", "here at fernpost.io": a lower-case domain name acts as a company in a
    possessive or after "at"; "petalbox.com went down" names only the site."""
    text = ("# DNS down\n\nReliability matters most here at fernpost.io. A corrupted file took down bunny.net's DNS "
            "for two hours, and petalbox.com went down with it.\n")
    found = organisations(extract(text))
    assert {"fernpost.io", "bunny.net"} <= found, found
    assert "petalbox.com" not in found, found
