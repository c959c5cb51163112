package export

import "testing"

func TestDemoteHeadings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"## Variance report\n\ntext\n\n### By region", "### Variance report\n\ntext\n\n#### By region"},
		{"# Title\n## Sub", "### Title\n#### Sub"},
		{"### Already under\ntext", "### Already under\ntext"},
		{"###### deep\n## top", "###### deep\n### top"}, // capped at 6
		{"Variance report\n---------------\n\ntext", "### Variance report\n\ntext"},
		{"Title\n=====\nSub\n---", "### Title\n#### Sub"},
		{"```\n## not a heading\n```\n## one", "```\n## not a heading\n```\n### one"},
		{"#hashtag and # sign\n\n---\n\nafter a break", "#hashtag and # sign\n\n---\n\nafter a break"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |\n|---|---|\n| 1 | 2 |"},
		{"- item\n---", "- item\n---"},
		{"    ## indented code", "    ## indented code"},
	} {
		if got := demoteHeadings(c.in, answerTop); got != c.want {
			t.Errorf("demoteHeadings(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
