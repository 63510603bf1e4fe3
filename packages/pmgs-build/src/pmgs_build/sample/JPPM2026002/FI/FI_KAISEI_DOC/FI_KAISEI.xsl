<?xml version="1.0" encoding="Shift_JIS"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:template match="/data">
<html><body><h1>FI改正情報 <xsl:value-of select="@trg"/></h1>
<table border="1"><xsl:for-each select="infor"><tr>
<td><xsl:value-of select="FI"/></td><td><xsl:value-of select="FI/@attr"/></td>
<td><xsl:value-of select="title"/></td><td><xsl:value-of select="trans"/></td>
<td><xsl:value-of select="date"/></td>
</tr></xsl:for-each></table></body></html>
</xsl:template>
</xsl:stylesheet>
